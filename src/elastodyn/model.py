"""The model contract: one API that every formulation answers.

A formulation (rigid Delta, KED, NE-PVP, assumed modes, ...) turns a robot description
into a *model*; analyses (modes, map, convergence, torques, simulate, generate) are free
functions over this contract and never ask which formulation built the model.

Coordinates
-----------
Every model states its generalized coordinates as ``Coordinates``: the actuated
coordinates first (the actuators' own variables: joint angles [rad] or slider positions
[m]; for a geared motor the shaft angle at the joint), then the elastic coordinates
(nodal displacements [m] and rotations [rad], or modal amplitudes [m]). Passive joint
variables are not generalized coordinates: a model closes its loops and reports them in
``State.passive``. With this choice the input matrix is always ``B = [I; 0]`` (the
actuator efforts act on the actuated coordinates), so every formulation's equations read

    M(q) qdd + c(q, qd) = [tau; 0],        q = (q_a, e),

and two formulations of the same robot can be compared entry by entry (the NE-PVP and
assumed-modes arms are, in ``tests/formulations/test_contract.py``).

A kineto-elasto-dynamic model (KED) is linear in the elastic coordinates about a
prescribed rigid motion: it answers the linear part of the contract (``linearize``,
``static_deflection``, ``simulate_motion``) and says ``capabilities`` without the
nonlinear parts (``mass_matrix``, ``bias``, ``inverse_dynamics``, ``direct_dynamics``).
An analysis that needs a missing capability is refused with one line naming it
(:func:`require`).

Shapes: n = n_a + n_e coordinates; arrays are float64, SI units.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import numpy as np

from .exceptions import InputError, ModelError

__all__ = ["Coordinates", "State", "Linearization", "Efforts", "Model", "CAPABILITIES",
           "require", "ModelCapabilityError", "KINDS", "MotionResponse", "Linearizes",
           "RestMatrices", "StaticDeflection", "InverseDynamics", "DirectDynamics",
           "SimulatesMotion", "TaskSpace", "SymbolicPrograms", "Energy", "PROTOCOLS",
           "TaskKinematics", "HasTaskKinematics", "SimulatesEfforts", "RunReport",
           "SimulatesControlled", "SmallDeformation", "HeldStart", "StepErrorEstimate",
           "InverseDynamicsAlong",
           "effort_key"]

KINDS = ("actuated", "elastic")
"""Kinds of generalized coordinates, in the order they appear."""

CAPABILITIES = (
    "state",              # state(actuated=..., pose=...): loop closure / inverse kinematics
    "pose",               # pose(state): end-effector position (and orientation)
    "inverse_kinematics", # inverse_kinematics(pose): actuated coordinates of a pose
    "mass_matrix",        # mass_matrix(state): M (n, n)
    "bias",               # bias(state): c (n,), M qdd + c = [tau; 0]
    "linearize",          # linearize(state): M, C, K, F about a pose or a reference motion
    "steady_motion",      # linearize about a motion at constant actuated speeds
    "static_deflection",  # static_deflection(state, inertial=...): elastic state under
                          # gravity at rest (inertial: and the loads of the state's motion)
    "inverse_dynamics",   # inverse_dynamics(state): efforts (and elastic accelerations)
    "inverse_dynamics_along",  # inverse_dynamics_along(trajectory, times): a rigid
                          # model's efforts along a motion, batched (MotionResponse)
    "direct_dynamics",    # direct_dynamics(state, tau): accelerations
    "energy",             # energy(state): kinetic and potential energy
    "simulate_motion",    # simulate_motion(trajectory, ...): prescribed actuators or pose
    "simulate_efforts",   # run_efforts(efforts, t_eval, ...), rigid_counterpart(),
                          # pose_of(q), actuated_of(q): force-driven runs (FFRF)
    "program",            # program(problem): symbolic straight-line program (generate)
    "rest_matrices",      # rest_matrices(states): (M, K) at rest at many poses, batched
    "task_kinematics",    # kinematics: a parallel robot's task-space kinematics (a Delta)
    "close_along",        # close_along(actuated (n, n_a)): index of the first sample of a
                          # joint-space path where the loops do not close, or -1
    "export_closure",     # export_closure(): the loop closure of a closed-loop model for
                          # generated code (symbolic.core.Closure)
    "simulate_controlled",  # simulate_controlled(trajectory, controller, ...): closed loop
    "step_error_estimate",  # simulate_motion(..., step_error=True): the run states its
                          # time-step error (False: the run alone, for a search's inner runs)
    "held_start",         # held_start(), run_efforts(..., hold=True): a force-driven run
                          # from the static equilibrium, held by the efforts there
    "small_deformation",  # deformation_extent(elastic): a model valid for small elastic
                          # deformations only; its runs are checked against the limits
)


class ModelCapabilityError(InputError):
    """The model cannot answer what an analysis asks (one line naming what is missing)."""


@dataclass(frozen=True)
class Coordinates:
    """Names, units and kinds of a model's generalized coordinates (actuated first).

    Parameters
    ----------
    names : tuple of str
        One name per coordinate (``q1``, ``leg1.lower.node1.v``, ``link2.f1``).
    units : tuple of str
        ``"m"`` or ``"rad"`` per coordinate.
    kinds : tuple of str
        ``"actuated"`` or ``"elastic"`` per coordinate (actuated ones first).
    """

    names: tuple
    units: tuple
    kinds: tuple

    def __post_init__(self):
        n = len(self.names)
        if len(self.units) != n or len(self.kinds) != n:
            raise ModelError("Coordinates: names, units and kinds must have one entry each")
        bad = [k for k in self.kinds if k not in KINDS]
        if bad:
            raise ModelError(f"Coordinates: unknown kind {bad[0]!r} (allowed: {KINDS})")
        na = self.kinds.count("actuated")
        if any(k != "actuated" for k in self.kinds[:na]):
            raise ModelError("Coordinates: the actuated coordinates come first")
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "units", tuple(self.units))
        object.__setattr__(self, "kinds", tuple(self.kinds))

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def n_actuated(self) -> int:
        return self.kinds.count("actuated")

    @property
    def n_elastic(self) -> int:
        return self.kinds.count("elastic")

    @property
    def actuated(self) -> tuple:
        """Names of the actuated coordinates."""
        return self.names[:self.n_actuated]

    @property
    def elastic(self) -> tuple:
        """Names of the elastic coordinates."""
        return self.names[self.n_actuated:]

    def to_dict(self) -> dict:
        return {"names": list(self.names), "units": list(self.units),
                "kinds": list(self.kinds)}


def _vec(name, value, n) -> np.ndarray:
    if value is None:
        return np.zeros(n)
    arr = np.asarray(value, dtype=float).reshape(-1)
    if arr.shape != (n,):
        raise InputError(name, np.asarray(value).tolist(), f"{n} value(s)")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, arr.tolist(), "finite values")
    return arr


@dataclass(frozen=True, eq=False)
class State:
    """A state of a model: coordinates q = (q_a, e), rates and accelerations, all (n,).

    Attributes
    ----------
    q, v, a : numpy.ndarray, shape (n,)
        Generalized coordinates [m, rad], rates [m/s, rad/s], accelerations [m/s^2,
        rad/s^2] in the model's coordinate order (actuated first).
    n_actuated : int
    t : float
        Time [s] (a sample of a reference motion).
    passive : numpy.ndarray, shape (n_p,)
        Passive joint variables of a closed configuration (empty for serial robots).
    pose : numpy.ndarray or None
        End-effector position [m] (and orientation [rad]) where the model knows it.
    detail : dict
        Formulation extras (for KED: the sample of the rigid reference motion).
    """

    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    n_actuated: int
    t: float = 0.0
    passive: np.ndarray = field(default_factory=lambda: np.zeros(0))
    pose: np.ndarray | None = None
    detail: dict = field(default_factory=dict)

    @classmethod
    def build(cls, n_actuated: int, n_elastic: int, *, actuated=None, rates=None,
              accelerations=None, elastic=None, elastic_rates=None,
              elastic_accelerations=None, **kw) -> "State":
        """A state from its actuated and elastic parts (missing parts zero)."""
        q = np.concatenate([_vec("actuated", actuated, n_actuated),
                            _vec("elastic", elastic, n_elastic)])
        v = np.concatenate([_vec("rates", rates, n_actuated),
                            _vec("elastic_rates", elastic_rates, n_elastic)])
        a = np.concatenate([_vec("accelerations", accelerations, n_actuated),
                            _vec("elastic_accelerations", elastic_accelerations, n_elastic)])
        return cls(q, v, a, n_actuated, **kw)

    @property
    def actuated(self) -> np.ndarray:
        return self.q[:self.n_actuated]

    @property
    def elastic(self) -> np.ndarray:
        return self.q[self.n_actuated:]

    @property
    def actuated_rates(self) -> np.ndarray:
        return self.v[:self.n_actuated]

    @property
    def elastic_rates(self) -> np.ndarray:
        return self.v[self.n_actuated:]

    @property
    def actuated_accelerations(self) -> np.ndarray:
        return self.a[:self.n_actuated]

    @property
    def elastic_accelerations(self) -> np.ndarray:
        return self.a[self.n_actuated:]

    def with_(self, **changes) -> "State":
        """A copy with some fields replaced (q, v, a, t, passive, pose, detail)."""
        return replace(self, **changes)


@dataclass(frozen=True, eq=False)
class Linearization:
    """Linear equations M x_dd + C x_d + K x = F about a state, over the free coordinates.

    With the actuators locked (the usual case: natural frequencies of the structure, the
    elastic response along a prescribed motion) the free coordinates are the elastic
    ones; with the actuators free, all coordinates and ``B`` maps the efforts.

    Attributes
    ----------
    M, C, K : numpy.ndarray, shape (m, m)
        Mass [kg, kg m, kg m^2], damping and gyroscopic [.. /s], stiffness [N/m, ...]
        matrices (C holds gyroscopic and Coriolis terms about a moving reference; K the
        elastic, geometric and centrifugal stiffness).
    F : numpy.ndarray, shape (m,)
        Forces of the reference (gravity, d'Alembert loads of the reference motion
        minus the reference's own elastic forces): the static deflection solves K x = F.
    B : numpy.ndarray, shape (m, n_a)
        Efforts to forces (zero rows on elastic coordinates).
    coordinates : Coordinates
        Names, units and kinds of the m free coordinates.
    about : State
        The reference state.
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    F: np.ndarray
    B: np.ndarray
    coordinates: Coordinates
    about: State

    @property
    def n(self) -> int:
        return self.M.shape[0]


@dataclass(frozen=True, eq=False)
class Efforts:
    """Actuator efforts and the elastic accelerations they come with.

    Attributes
    ----------
    tau : numpy.ndarray, shape (n_a,)
        Efforts [N m for revolute, N for prismatic actuators], friction included.
    elastic_accelerations : numpy.ndarray, shape (n_e,)
        The elastic accelerations of the inverse problem (Briot & Khalil 2013 IV-D:
        the actuated motion is prescribed, the elastic one follows) [m/s^2, rad/s^2].
    """

    tau: np.ndarray
    elastic_accelerations: np.ndarray


@runtime_checkable
class Model(Protocol):
    """What every formulation answers (see the module docstring).

    Attributes
    ----------
    formulation : str
        Registry name (``ked``, ``nepvp``, ``amm``, ``explicit``, ``multipliers``).
    robot : object
        The description it was built from.
    options : dict
        The model options (discretization and model switches), echoed in results.
    coordinates : Coordinates
    capabilities : frozenset of str
        The subset of :data:`CAPABILITIES` this model answers.
    mechanisms : int
        Zero-frequency modes of the structure with the actuators locked (a mechanism:
        ball joints without preload), >= 0.
    pose_names : tuple of str or None
        Names of the end-effector pose's coordinates (``x y z``; a planar pose ``x y
        theta``), None where the model does not name them.
    """

    formulation: str
    robot: object
    options: dict
    coordinates: Coordinates
    capabilities: frozenset
    mechanisms: int
    pose_names: tuple | None

    def state(self, *, actuated=None, pose=None, rates=None, accelerations=None,
              elastic=None, elastic_rates=None) -> State: ...


def effort_key(units) -> tuple[str, str]:
    """(result key, unit) of the efforts of actuated coordinates with ``units`` ("rad"
    or "m" each): ``torque_nm`` for revolute actuators, ``force_n`` for prismatic ones,
    ``effort_si`` for a mix (the same key whatever the formulation)."""
    units = set(units)
    if units == {"rad"}:
        return "torque_nm", "N m"
    if units == {"m"}:
        return "force_n", "N"
    return "effort_si", "N or N m"


@dataclass(frozen=True, eq=False)
class MotionResponse:
    """What a motion-driven run returns, whatever the formulation (the actuators follow
    the prescribed motion; the elastic coordinates respond).

    Attributes
    ----------
    time : numpy.ndarray, shape (n_t,)
        Output times [s].
    actuated : numpy.ndarray, shape (n_t, n_a)
        The actuated coordinates followed [rad or m].
    efforts, rigid_efforts : numpy.ndarray, shape (n_t, n_a)
        Actuator efforts of the flexible model and of the rigid one at the same actuated
        motion [N m or N].
    ee_position, rigid_ee_position : numpy.ndarray, shape (n_t, 3)
        End-effector position of the flexible and of the rigid model, world frame [m]
        (planar robots: z = 0).
    elastic : numpy.ndarray, shape (n_t, n_e)
        Elastic coordinates (the model's ``coordinates.elastic``) [m, rad].
    ee_angle, rigid_ee_angle : numpy.ndarray, shape (n_t,), or None
        Planar end-effector orientation [rad], where the model has one.
    extra : dict
        Further quantities of this engine (unit-suffixed keys, arrays (n_t, k)), e.g. a
        Delta platform's attitude variation ``ee_attitude_deg`` or the links' midspan
        deflections ``midspan``; the analyses pass them on.
    columns : dict
        Key of ``extra`` -> component names.
    summary : dict
        Headline values the engine adds (step used, evaluations, validity measures).
    warnings : tuple of str
        Validity and accuracy warnings of this run.
    method : str
        The integrator used.
    description : str
        One line: discretization and integrator (for the result's title).
    """

    time: np.ndarray
    actuated: np.ndarray
    efforts: np.ndarray
    rigid_efforts: np.ndarray
    ee_position: np.ndarray
    rigid_ee_position: np.ndarray
    elastic: np.ndarray
    ee_angle: np.ndarray | None = None
    rigid_ee_angle: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    columns: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    warnings: tuple = ()
    method: str = ""
    description: str = ""


@dataclass(frozen=True, eq=False)
class RunReport:
    """A run as an engine reports it, for an analysis to turn into a result unchanged:
    ``quantities`` (unit-suffixed keys -> arrays (n_t, k), the index ``time_s``),
    ``columns`` (key -> component names), ``summary``, ``inputs`` (what the engine
    chose: gains, defaults), ``warnings`` and a one-line ``description``."""

    quantities: dict
    columns: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    warnings: tuple = ()
    description: str = ""


# --------------------------------------------------------------------------------------
# One protocol per capability: an analysis checks ``require(model, "linearize", ...)``
# (the model's declared capabilities) and then calls the methods below, nothing else.
# --------------------------------------------------------------------------------------
@runtime_checkable
class Linearizes(Protocol):
    """Capability ``linearize`` (and ``steady_motion`` for states with actuated rates)."""

    def linearize(self, st: State, *, actuators: str = "locked",
                  preload: bool | None = None) -> Linearization:
        """The linear equations about ``st`` (:class:`Linearization`): actuators
        ``"locked"`` (over the elastic coordinates; natural frequencies of the structure)
        or ``"free"`` (all coordinates); ``preload``: the static internal forces'
        geometric stiffness (None: the model's default). Shapes (m, m), SI."""


@runtime_checkable
class RestMatrices(Protocol):
    """Batched rest matrices (with ``linearize``): many poses at once."""

    def rest_matrices(self, states, *, preload: bool | None = None):
        """(M, K), each (B, n_e, n_e), at rest at the poses of ``states`` (B states,
        neighbouring poses in order), equal to :meth:`Linearizes.linearize`'s."""


@runtime_checkable
class StaticDeflection(Protocol):
    """Capability ``static_deflection``."""

    def static_deflection(self, st: State, *, inertial: bool = True) -> State:
        """The elastic equilibrium at ``st``'s actuated positions (and rates: a steady
        motion's quasi-static deflection; ``inertial`` False: gravity alone, at rest);
        raises ModelError for a mechanism."""


@runtime_checkable
class InverseDynamics(Protocol):
    """Capability ``inverse_dynamics``."""

    def inverse_dynamics(self, st: State) -> Efforts:
        """Efforts tau (n_a,) [N m or N] for the actuated accelerations of ``st`` and the
        elastic accelerations (n_e,) that come with them."""


@runtime_checkable
class DirectDynamics(Protocol):
    """Capability ``direct_dynamics``."""

    def direct_dynamics(self, st: State, tau) -> np.ndarray:
        """Accelerations (n,) under efforts tau (n_a,)."""


@runtime_checkable
class SimulatesMotion(Protocol):
    """Capability ``simulate_motion``: the elastic response to a prescribed actuated
    motion."""

    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None) -> MotionResponse:
        """Run along ``trajectory`` (joint space: the actuated coordinates; task space:
        the end-effector through the model's inverse kinematics) at output ``times``
        (n_t,) [s], evenly spaced from the trajectory's start. ``initial``: "static"
        (the static deflection at the first pose) or "zero"; ``method``: the model's
        integrator (None: its default; an unknown one is an InputError naming
        ``--method``); ``integrator_step`` [s]: a bound on the integrator's step (an
        engine that has none refuses it, naming ``--integrator-step``); ``progress``:
        callable(done, total) or None."""


@runtime_checkable
class TaskSpace(Protocol):
    """Capabilities ``pose`` and ``inverse_kinematics``."""

    pose_names: tuple

    def inverse_kinematics(self, pose) -> np.ndarray:
        """Actuated coordinates (n_a,) of an end-effector pose (``pose_names``) [m, rad];
        raises InputError for an unreachable pose."""


@runtime_checkable
class SymbolicPrograms(Protocol):
    """Capability ``program``."""

    def program(self, problem: str):
        """The straight-line program of ``problem`` (one of the registry entry's
        ``problems``) for ``generate``."""


@runtime_checkable
class Energy(Protocol):
    """Capability ``energy``."""

    def energy(self, st: State) -> tuple[float, float]:
        """(kinetic, potential) energy [J] at ``st``."""


@runtime_checkable
class InverseDynamicsAlong(Protocol):
    """Capability ``inverse_dynamics_along``: a rigid model's batched inverse dynamics
    (without it, the analyses evaluate :class:`InverseDynamics` sample by sample)."""

    def inverse_dynamics_along(self, trajectory, times) -> MotionResponse:
        """Efforts (n_t, n_a) along ``trajectory`` at ``times`` (n_t,) [s], as a
        :class:`MotionResponse` with no elastic coordinates (the rigid efforts and poses
        equal the efforts and poses; ``extra``: the model's own quantities, e.g. Kuo's
        multipliers)."""


@runtime_checkable
class TaskKinematics(Protocol):
    """The task-space kinematics of a parallel robot whose pose is its platform
    position X (n, 3) [m] (a Delta's)."""

    warn_condition: float
    """Condition number of the Jacobian above which a pose counts as near-singular."""

    def state(self, X, Xd=None):
        """The kinematic state at positions X (..., 3) (and velocities Xd); raises
        InputError for an unreachable or singular pose."""

    def condition_number(self, X, q=None):
        """Condition number of the Jacobian at X (..., 3) [-]."""

    def reachability_margin(self, X):
        """Margin of reachability per leg at X (..., 3) (negative: unreachable) [-]."""


@runtime_checkable
class HasTaskKinematics(Protocol):
    """Capability ``task_kinematics``: the model's ``kinematics`` (a
    :class:`TaskKinematics`) answers the workspace and path checks at once."""

    kinematics: TaskKinematics


@runtime_checkable
class SimulatesEfforts(Protocol):
    """Capability ``simulate_efforts``: force-driven runs (efforts on the actuators
    against time, or the actuators at constant speeds), on the model's full
    coordinates q (its runs' ``q`` (n_t, n_q)), with a rigid counterpart."""

    force_methods: tuple
    """The integrators of the force-driven runs (``--method``), the default first."""

    def run_efforts(self, efforts, t_eval, *, method: str, step=None, rho_inf=0.8,
                    progress=None):
        """A run under efforts(t) (n_a,) [N, N m] from rest at home, sampled at t_eval
        (n_t,) [s]: an object with ``t``, ``q``, ``residual``, ``step``,
        ``singular_time``, ``message``, ``coarse`` (the same run at twice the step,
        (sample indices (m,), q (m, n_q)), for the step's error estimate, or None) and
        ``notes`` (warnings on what the run had to do, e.g. halve its step)."""

    def run_drive(self, speed, t_eval, *, elastic=None, elastic_rates=None, method: str,
                  step=None, rho_inf=0.8, progress=None):
        """A run with the actuators at constant ``speed`` (n_a,) [rad/s, m/s] (as
        :meth:`run_efforts`)."""

    def rigid_counterpart(self):
        """The same robot with rigid links (a model of the same formulation)."""

    def default_integrator_step(self) -> float:
        """The integrator's default step [s] at home (resolving the first elastic mode
        with the actuators locked)."""

    def pose_of(self, q) -> np.ndarray:
        """End-effector pose of full coordinates q [m, rad]."""

    def actuated_of(self, q) -> np.ndarray:
        """Actuated coordinates (n_a,) of full coordinates q."""

    def elastic_of(self, q) -> np.ndarray:
        """Elastic coordinates (..., n_e) of full coordinates q (..., n_q)."""

    def joint_positions(self, q) -> np.ndarray:
        """Positions (n_joints, 2) [m] of every joint frame's origin in the plane (the
        order of ``joint_names``)."""

    joint_names: tuple
    """Names of the joints, in the order of :meth:`joint_positions`."""

    def midspan_deflections(self, q) -> np.ndarray:
        """The bending at mid-length (n_beams,) [m] of every beam (``beam_names``)."""

    beam_names: tuple
    """Names of the beams, in the order of :meth:`midspan_deflections`."""

    def stability_warning(self, q, what: str = "the start"):
        """A warning (str) when the model's equilibrium at q is unstable where the
        robot is not (a linear model's limit), else None."""


@runtime_checkable
class StepErrorEstimate(Protocol):
    """Capability ``step_error_estimate``: a motion-driven run estimates its time-step
    error (its summary's ``step_error_*``) unless asked not to."""

    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method=None, integrator_step=None, progress=None,
                        step_error: bool = True):
        """As :meth:`SimulatesMotion.simulate_motion`; ``step_error`` False: the run
        alone (a search's inner runs, a benchmark)."""


@runtime_checkable
class HeldStart(Protocol):
    """Capability ``held_start``: a force-driven run may start from rest at the static
    equilibrium under gravity at home, held there by the actuators' efforts (which the
    run adds to the given ones)."""

    def held_start(self):
        """(state, efforts (n_a,) [N or N m]): the static equilibrium at home and the
        efforts that hold it."""

    def run_efforts(self, efforts, t_eval, *, method: str, step=None, rho_inf=0.8,
                    progress=None, hold: bool = False):
        """As :meth:`SimulatesEfforts.run_efforts`; ``hold``: from :meth:`held_start`,
        its efforts added to ``efforts(t)``."""


@runtime_checkable
class SimulatesControlled(Protocol):
    """Capability ``simulate_controlled``: a controller of the model's own closes the
    loop on the actuated coordinates and tracks a trajectory (the model is the plant)."""

    controllers: tuple
    """The controller kinds it has (``pd``, ``computed-torque``), the default first."""

    def simulate_controlled(self, trajectory, controller: dict, duration: float,
                            step: float, *, initial_offset=None,
                            free_vibration: bool = False, progress=None) -> RunReport:
        """Track ``trajectory`` for ``duration`` [s], output ``step`` [s], under
        ``controller`` (``kind``, ``kp``, ``kd``, ...); ``initial_offset`` (3,) [m]: an
        initial end-effector error where the model takes one; ``free_vibration``: hold the
        start and release the robot undeformed (refused where it does not apply)."""


@runtime_checkable
class SmallDeformation(Protocol):
    """Capability ``small_deformation``: the model describes small elastic deformations
    only (linear, or of small rotation, in its elastic coordinates: NE-PVP, FFRF, AMM).
    Every run of it is checked against the limits of
    :func:`elastodyn.formulations.base.small_deformation_check` (the analyses do it,
    whatever the formulation; KED checks the same limits in its own engine, with its
    model error estimate)."""

    def deformation_extent(self, elastic) -> tuple:
        """For elastic coordinates (n_t, n_e) [m, rad]: the largest elastic displacement
        of any point of a beam over that beam's length (n_t,) [-] and the largest elastic
        rotation of any point (n_t,) [rad], at each sample."""


PROTOCOLS = {"step_error_estimate": StepErrorEstimate, "held_start": HeldStart, "small_deformation": SmallDeformation, "linearize": Linearizes, "simulate_controlled": SimulatesControlled, "simulate_efforts": SimulatesEfforts, "task_kinematics": HasTaskKinematics, "inverse_dynamics_along": InverseDynamicsAlong,
             "rest_matrices": RestMatrices, "static_deflection": StaticDeflection,
             "inverse_dynamics": InverseDynamics, "direct_dynamics": DirectDynamics,
             "simulate_motion": SimulatesMotion, "inverse_kinematics": TaskSpace,
             "program": SymbolicPrograms, "energy": Energy}
"""Capability -> the protocol a model declaring it must satisfy (checked by the
contract tests, tests/formulations/test_contract.py)."""


def require(model, *needs: str, what: str) -> None:
    """Raise :class:`ModelCapabilityError` naming the first capability in ``needs`` that
    ``model`` lacks (``what``: the analysis asking, e.g. ``"modes"``)."""
    for need in needs:
        if need not in CAPABILITIES:
            raise ModelError(f"unknown capability {need!r}")
        if need not in model.capabilities:
            raise ModelCapabilityError(
                "--formulation", model.formulation,
                f"a formulation that gives {need.replace('_', ' ')} (needed by {what}); "
                f"{model.formulation} gives: " + ", ".join(sorted(model.capabilities)))
