"""The floating-frame formulation (Rosyid & El-Khasawneh 2020) behind the model contract.

Coordinates: the robot's actuated joint variables (sliders [m], motors [rad]) and the
elastic coordinates of every beam (``<joint>.u2``, ``.v2``, ``.r2``, ...: nodal axial and
transverse displacements [m] and slopes [rad] in the beam's body frame). They are the
independent coordinates of the coordinate partitioning of eqs. (91)-(106); the passive
joint variables and every body's reference coordinates follow from the constraints
(``State.detail["q"]``: the full FFRF coordinates). ``mass_matrix`` and ``bias`` are the
partitioned equations ``N^T M N`` and ``N^T (M nu - Q)`` (:meth:`~.multibody.
MultibodySystem.reduced`), so linearization, static deflection and the generic engines
of the contract run on them; :func:`.ffrf_solve.integrate` integrates the system by
partitioning or by projection.

``pose``: the end-effector position [m] and orientation [rad] in the plane (e1, e2): the
origin of the robot's ``end_effector`` point frame (default: the platform frame) and the
direction from it to the origin of its ``toward`` frame (default: the platform frame's x
direction).
"""
from __future__ import annotations

import copy
import math

import numpy as np

from ...description.tree import TreeRobot
from ...exceptions import InputError, ModelError
from ...fem.modal import lowest_eigenvalues
from ...model import Coordinates, State
from ..base import NONLINEAR_CAPABILITIES, NonlinearModel, beam_extent
from .multibody import Marker, scaled_body
from .tree import tree_system

__all__ = ["FFRFModel"]


def _atan2(y, x):
    """atan2 for real or complex-step arguments (the imaginary part carries the
    first-order change: d atan2 = (x dy - y dx) / (x^2 + y^2))."""
    ang = math.atan2(float(np.real(y)), float(np.real(x)))
    if not (np.iscomplexobj(y) or np.iscomplexobj(x)):
        return ang
    xr, yr = np.real(x), np.real(y)
    return ang + 1j * (xr * np.imag(y) - yr * np.imag(x)) / (xr * xr + yr * yr)


class FFRFModel(NonlinearModel):
    """A planar tree robot by the floating frame of reference (module docstring).

    Options: ``shape`` ("fem", "rr" or "sine": Simeon's lateral sine modes and quadratic
    axial element in a chord frame, :class:`~elastodyn.fem.ffrf.SineShape`),
    ``elements`` (fem), ``modes`` (sine), ``boundary`` (fixed-free, fixed-pinned,
    pinned-pinned; sine: pinned-pinned), ``rigid`` (the rigid model). The end-effector is the
    robot's ``end_effector`` (default: the platform frame).
    """

    formulation = "ffrf"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "simulate_efforts",
                                             "small_deformation"}
    #: the pose is the end-effector's (x, y) [m] and its orientation theta [rad]
    pose_names = ("x", "y", "theta")
    default_preload = False

    def __init__(self, robot: TreeRobot, options: dict | None = None):
        if not isinstance(robot, TreeRobot):
            raise InputError("robot", type(robot).__name__, "a TreeRobot")
        opts = {"shape": "fem", "elements": 4, "boundary": "fixed-free", "rigid": False,
                "modes": 2}
        opts.update(options or {})
        self.robot = robot
        self.rigid = bool(opts["rigid"])
        self.options = {k: opts[k] for k in ("shape", "elements", "boundary")}
        ts = tree_system(robot, shape=opts["shape"], elements=opts["elements"],
                         boundary=opts["boundary"], rigid=bool(opts["rigid"]),
                         modes=int(opts["modes"]))
        if opts["shape"] == "sine":
            self.options = {"shape": "sine", "modes": int(opts["modes"]),
                            "boundary": "pinned-pinned"}
        self.tree = ts
        self.system = ts.system
        self._midspan = None
        units = []
        for a in ts.actuated:
            jt = next(j for j in robot.joints if j.name == a)
            units.append("m" if jt.kind == "prismatic" else "rad")
        enames = self.system.elastic_names()
        self.coordinates = Coordinates(
            tuple(ts.actuated) + enames, tuple(units) + self.system.elastic_units(),
            ("actuated",) * len(ts.actuated) + ("elastic",) * len(enames))
        ee = robot.end_effector or (None, None)
        self._ee = self._marker(ee[0], "end_effector")
        self._dir = None if ee[1] is None else self._marker(ee[1], "end_effector")

    def _marker(self, name, what) -> Marker:
        """The marker of a joint frame's origin (None: the platform frame)."""
        if name is None:
            return Marker(self.tree.platform, (0.0, 0.0), 0.0)
        if name not in self.tree.markers:
            raise InputError(what, name, "a joint name: " + ", ".join(self.tree.markers))
        return self.tree.markers[name]

    # ------------------------------------------------------------------ states
    def home_actuated(self) -> np.ndarray:
        return self.tree.home.copy()

    def full(self, st: State) -> tuple[np.ndarray, np.ndarray]:
        """The FFRF coordinates and rates (n_q,) of a closed state."""
        q = st.detail["q"]
        return q, self.system.velocity_map(q) @ (st.v * self._scaling())

    def _complete(self, st: State) -> State:
        na = self.n_actuated
        s = self.tree.from_joint(st.q[:na])
        guess = st.detail.get("q", self.tree.q_home)
        q = self.system.close(guess, s, st.q[na:])
        detail = dict(st.detail, q=q)
        joints = self.system.joint_coordinates(q)
        passive = np.array([v for k, v in joints.items() if k not in self.tree.actuated
                            and not k.startswith("closure.")])
        st = st.with_(passive=passive, detail=detail)
        return st.with_(pose=self.pose_of(q))

    def pose_of(self, q) -> np.ndarray:
        """End-effector (x, y) [m] and orientation [rad] at FFRF coordinates q."""
        p = self.system.marker(self._ee, q)
        if self._dir is None:
            ang = p.phi
        else:
            d = self.system.marker(self._dir, q).r - p.r
            ang = _atan2(d[1], d[0])
        return np.array([p.r[0], p.r[1], ang])

    def scaled_beams(self, *, mass=1.0, axial=1.0, bending=1.0) -> "FFRFModel":
        """The same model with every flexible beam's mass per length, EA and EI multiplied
        by ``mass``, ``axial`` and ``bending`` (:func:`~.multibody.scaled_body`;
        rigid bodies unchanged). Complex factors give a complex-step model: its runs and
        poses carry the derivatives in their imaginary parts."""
        bodies = [b if b.shape is None else
                  scaled_body(b, mass=mass, axial=axial, bending=bending)
                  for b in self.system.bodies]
        out = copy.copy(self)
        out.tree = copy.copy(self.tree)
        out.system = out.tree.system = self.system.with_bodies(bodies)
        return out

    # ------------------------------------------------------------------ dynamics
    def _scaling(self) -> np.ndarray:
        """d(system coordinates)/d(robot coordinates), diagonal: 1 / scale on the actuated
        joints (scale = +-1, the joint axis against the plane normal), 1 elsewhere."""
        na = self.n_actuated
        S = np.ones(self.n)
        S[:na] = 1.0 / self.tree.scale
        return S

    def _mc(self, st: State):
        S = self._scaling()          # system rates = S * the robot's joint rates
        Mr, cr, _, _ = self.system.reduced(st.detail["q"], st.v * S)
        return S[:, None] * Mr * S[None, :], S * cr

    def mass_matrix(self, st: State) -> np.ndarray:
        return self._mc(st)[0]

    def bias(self, st: State) -> np.ndarray:
        return self._mc(st)[1]

    def elastic_stiffness(self) -> np.ndarray:
        return self.system.elastic_stiffness().copy()

    # ------------------------------------------------------------------ runs
    @property
    def force_methods(self) -> tuple:
        """The force-driven integrators (:data:`~elastodyn.formulations.ffrf.solve.
        METHODS`)."""
        from .solve import METHODS
        return tuple(METHODS)

    def default_integrator_step(self) -> float:
        """:func:`~elastodyn.formulations.ffrf.solve.default_step` at home [s]."""
        from .solve import default_step
        return float(default_step(self.system, self.tree.q_home))

    def elastic_of(self, q) -> np.ndarray:
        """Elastic coordinates (..., n_e) of full coordinates q (..., n_q)."""
        return np.asarray(q)[..., self.system.el_index]

    def deformation_extent(self, elastic) -> tuple[np.ndarray, np.ndarray]:
        """The largest elastic displacement over its body's length (n_t,) [-] and the
        largest elastic rotation (the slope of the deflection) (n_t,) [rad] of elastic
        coordinates (n_t, n_e), in the body frames, at the shapes' breaks (the elements'
        nodes) and midway between them (:class:`~elastodyn.model.SmallDeformation`)."""
        rows, k = [], 0
        for b in self.system.bodies:
            if b.shape is None:
                continue
            xi = np.linspace(0.0, 1.0, 2 * len(b.shape.breaks) - 1)   # breaks, midpoints
            L = float(np.real(b.length))
            D = np.asarray(b.shape(xi))                               # (n_s, 2, n_f)
            R = np.asarray(b.shape(xi, derivative=1))[:, 1:2] / L     # dv/dx (n_s, 1, n_f)
            rows.append((list(range(k, k + b.n_f)), D, R, L))
            k += b.n_f
        return beam_extent(elastic, rows)

    def rigid_counterpart(self) -> "FFRFModel":
        """The same robot with rigid links (the rigid model alongside a simulation)."""
        return FFRFModel(self.robot, {**self.options, "rigid": True,
                                         "boundary": "fixed-free"})

    def run_efforts(self, efforts, t_eval, *, method: str = "partitioning",
                    step: float | None = None, rho_inf: float = 0.8, complex_step=None,
                    newton_tol: float | None = None, progress=None):
        """Force-driven run from rest, undeformed, at the home pose: ``efforts(t)``
        (n_a,) along the robot's actuated coordinates [N or N m] (the robot's sign:
        converted to the system's joint axes here). ``complex_step``: see
        :func:`~.ffrf_solve.integrate` (a :meth:`scaled_beams` model); ``newton_tol``
        [m, rad] (default :data:`~.ffrf_solve.NEWTON_TOL`). Returns the
        :class:`~.ffrf_solve.FFRFRun` (its ``q`` are the full FFRF coordinates; poses by
        :meth:`pose_of`)."""
        from .solve import integrate
        sc = np.asarray(self.tree.scale, dtype=float)
        q0 = self.tree.q_home
        return integrate(self.system, q0, np.zeros_like(q0), t_eval,
                         efforts=lambda t: efforts(t) * sc, method=method, step=step,
                         rho_inf=rho_inf, complex_step=complex_step, progress=progress,
                         **({} if newton_tol is None else {"newton_tol": newton_tol}))

    def run_drive(self, speed, t_eval, *, elastic=None, elastic_rates=None,
                  method: str = "partitioning", step: float | None = None,
                  rho_inf: float = 0.8, progress=None):
        """Motion-driven run: the actuated joints at constant ``speed`` (n_a,) [rad/s or
        m/s] from the home pose, the elastic coordinates starting at ``elastic`` and
        ``elastic_rates`` (n_e,) [m, rad and per s] (default 0). Returns the
        :class:`~.ffrf_solve.FFRFRun`."""
        from .solve import integrate
        na, ne = self.n_actuated, self.n_elastic
        w = np.asarray(speed, dtype=float).reshape(na) / self.tree.scale
        e0 = np.zeros(ne) if elastic is None else np.asarray(elastic, float).reshape(ne)
        e1 = (np.zeros(ne) if elastic_rates is None
              else np.asarray(elastic_rates, float).reshape(ne))
        s0 = self.system.actuated_coordinates(self.tree.q_home)[0]
        q0 = self.system.close(self.tree.q_home, s0, e0)
        qd0 = self.system.velocity_map(q0) @ np.concatenate([w, e1])
        t0 = float(np.asarray(t_eval)[0])

        def motion(t):
            return s0 + w * (t - t0), w, np.zeros(na)
        return integrate(self.system, q0, qd0, t_eval, motion=motion, method=method,
                         step=step, rho_inf=rho_inf, progress=progress)

    def run_motion(self, motion, t_eval, *, elastic=None, step: float | None = None,
                   rho_inf: float = 0.8, progress=None):
        """Motion-driven run: ``motion(t)`` -> (a, a_dot, a_ddot) (n_a,) the robot's
        actuated coordinates [m or rad] and their rates, the elastic coordinates starting
        at ``elastic`` (n_e,) (default 0) at rest relative to the motion (elastic rates 0).
        Generalized-alpha on the partitioned equations (:func:`~.ffrf_solve.integrate`).
        Returns the :class:`~.ffrf_solve.FFRFRun`."""
        from .solve import integrate
        sc = np.asarray(self.tree.scale, dtype=float)
        ne = self.n_elastic
        e0 = np.zeros(ne) if elastic is None else np.asarray(elastic, float).reshape(ne)
        t_eval = np.asarray(t_eval, dtype=float)

        def sys_motion(t):
            a, ad, add = motion(t)
            return self.tree.from_joint(a), np.asarray(ad) / sc, np.asarray(add) / sc

        s0, sd0, _ = sys_motion(float(t_eval[0]))
        q0 = self.system.close(self.tree.q_home, s0, e0)
        qd0 = self.system.velocity_map(q0) @ np.concatenate([sd0, np.zeros(ne)])
        return integrate(self.system, q0, qd0, t_eval, motion=sys_motion, step=step,
                         rho_inf=rho_inf, progress=progress)

    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None):
        """The elastic response to a prescribed actuated motion
        (:class:`~elastodyn.model.SimulatesMotion`): ``generalized-alpha`` (default) on
        the partitioned equations (:meth:`run_motion`), its step at most the output step
        and at most ``integrator_step``; efforts and the rigid counterpart from the
        contract's inverse dynamics; ``dop853`` or ``radau``: the generic engine."""
        from ..base import actuated_motion, efforts_along, motion_function, motion_response
        from .solve import default_step
        if method not in (None, "generalized-alpha"):
            return super().simulate_motion(trajectory, times, initial=initial,
                                           method=method, integrator_step=integrator_step,
                                           progress=progress)
        if integrator_step is not None and not (np.isfinite(integrator_step) and
                                                integrator_step > 0):
            raise InputError("--integrator-step", integrator_step, "a finite step > 0 [s]")
        qa, qda, qdda = actuated_motion(self, trajectory, times)
        motion = motion_function(trajectory, times, qa)
        ne = self.n_elastic
        st0 = self.state(actuated=qa[0], rates=qda[0])
        e0 = self.static_deflection(st0).elastic if initial == "static" and ne else None
        bar = None if progress is None else (
            lambda t, T: progress(min(len(times), int(len(times) * (t - times[0])
                                                      / max(T - times[0], 1e-300))),
                                  len(times)))
        q_start = self.system.close(self.tree.q_home, self.tree.from_joint(qa[0]),
                                    None if e0 is None else e0)
        warn = self.stability_warning(q_start)
        step = float(times[1] - times[0]) if len(times) > 1 else np.inf
        h = min(default_step(self.system, q_start), step,
                np.inf if integrator_step is None else float(integrator_step))
        try:
            run = self.run_motion(motion, times, elastic=e0, step=h, progress=bar)
        except ModelError as exc:
            raise ModelError(f"{exc}; {warn}" if warn else str(exc)) from None
        if run.singular_time is not None:
            raise ModelError(run.message)
        el = self.system.el_index
        tau, rtau, pose, rpose = efforts_along(self, st0, times, qa, qda, qdda, run.q[:, el],
                                               run.qd[:, el])
        return motion_response(self, times, qa, tau, rtau, pose, rpose, run.q[:, el],
                               method="generalized-alpha",
                               summary={"integrator_step_s": float(run.step)},
                               warnings=[warn] if warn else [])

    def tangent_stability(self, q, s=None) -> tuple[float, float]:
        """(lowest eigenvalue of the tangent stiffness, lowest of the linear elastic
        stiffness) [rad^2/s^2], each over the elastic block of the reduced mass matrix,
        at FFRF coordinates q at rest with the actuated coordinates held.

        The tangent is the derivative of the elastic rows of the reduced forces (elastic
        and gravity, through the loop closure) by central differences (step 1e-7 of the
        largest elastic coordinate scale, 1e-9 m minimum: the forces are smooth, the
        error is O(h^2)). The linear FFRF (Rosyid & El-Khasawneh 2020, eqs. (36)-(38)) has
        no geometric stiffening: a beam's tip is not drawn in as it bends, so a load
        pulling a flexible leg's tip away from its base (a hanging platform) softens the
        model where in reality the tension stiffens it. A negative tangent eigenvalue
        where the linear one is positive means the model's equilibrium is unstable where
        the real one is not: its results are then meaningless (the caller warns)."""
        sy = self.system
        na, ne = sy.n_actuated, sy.n_elastic
        if ne == 0:
            return math.inf, math.inf
        q = np.asarray(q, dtype=float)
        el = sy.el_index
        s = sy.actuated_coordinates(q)[0] if s is None else s
        e = q[el]
        v0 = np.zeros(na + ne)
        _, Mr, _, _ = sy.closed_reduced(q, s, e, v0)
        Me = Mr[na:, na:].copy()
        h = max(1e-9, 1e-7 * float(np.abs(e).max(initial=0.0)))
        Kt = np.empty((ne, ne))
        for j in range(ne):
            d = np.zeros(ne)
            d[j] = h
            cp = sy.closed_reduced(q, s, e + d, v0)[2][na:].copy()
            cm = sy.closed_reduced(q, s, e - d, v0)[2][na:].copy()
            Kt[:, j] = (cp - cm) / (2 * h)
        Kt = 0.5 * (Kt + Kt.T)
        # signed: a negative lowest eigenvalue is the instability sought
        lo_t = lowest_eigenvalues(Me, Kt)[0]
        lo_k = lowest_eigenvalues(Me, sy.elastic_stiffness())[0]
        return float(lo_t), float(lo_k)

    def stability_warning(self, q, what: str = "the start") -> str | None:
        """A warning (str) when the model's equilibrium at q is unstable where its
        linear structure is not (:meth:`tangent_stability`), else None."""
        lo_t, lo_k = self.tangent_stability(q)
        if lo_t < 0 < lo_k:
            return (f"the linear FFRF model is unstable at {what}: its tangent stiffness "
                    f"has a negative eigenvalue ({lo_t:.3g} rad^2/s^2; the elastic "
                    f"structure's lowest is {lo_k:.3g}): the loads on the links (gravity "
                    "through the closure) exceed what a model without geometric "
                    "stiffening can carry, and a run drifts away from the equilibrium "
                    "(check against another formulation: elastodyn compare)")
        return None

    def joint_positions(self, q) -> np.ndarray:
        """Positions (n_joints, 2) [m] of every joint frame's origin in the plane (the
        order of ``robot.joints``)."""
        return self.system.marker_positions([self.tree.markers[j.name]
                                             for j in self.robot.joints], q)

    def midspan_deflections(self, q) -> np.ndarray:
        """Transverse deflection at mid-length (n_beams,) [m] of every flexible body, in
        its body frame (the order of :attr:`beam_names`)."""
        if self._midspan is None:     # (elastic slice, transverse shape row at x = L/2)
            self._midspan = [(slice(self.system.body_slice(i).start + 3,
                                    self.system.body_slice(i).stop), b.shape(0.5)[1])
                             for i, b in enumerate(self.system.bodies)
                             if b.shape is not None]
        q = np.asarray(q)
        return np.array([float(row @ q[sl]) for sl, row in self._midspan])

    @property
    def joint_names(self) -> tuple:
        return tuple(j.name for j in self.robot.joints)

    @property
    def beam_names(self) -> tuple:
        return tuple(b.name for b in self.system.bodies if b.shape is not None)

    def actuated_of(self, q) -> np.ndarray:
        """The robot's actuated coordinates (n_a,) at FFRF coordinates q."""
        return self.tree.to_joint(self.system.actuated_coordinates(q)[0])
