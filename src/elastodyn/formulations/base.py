"""What the nonlinear formulations share: the parts of the model contract
(:mod:`elastodyn.model`) that follow from M(q) and c(q, qd).

A subclass gives ``coordinates``, ``mass_matrix(state)``, ``bias(state)`` and
``_complete(state)`` (close the loops, fill ``passive`` and ``pose``); this base derives

* ``linearize``: M, C = dc/dqd, K = d(M a + c)/dq about a state (a pose at rest, a sample
  of a reference motion, a steady motion), over the elastic coordinates with the
  actuators locked or over all coordinates;
* ``static_deflection``: the elastic equilibrium c_e(q_a, e, qd_a, 0) = 0 at given
  actuated positions and rates (rates zero: statics under gravity; constant rates: the
  quasi-steady deflection of a steady motion, e.g. a beam spinning about its hub);
* ``inverse_dynamics`` (Briot & Khalil 2013 IV-D: prescribed actuated accelerations,
  the elastic accelerations follow) and ``direct_dynamics``, both from
  [tau; 0] = M qdd + c.

Derivatives are central finite differences of the compiled model unless a subclass
gives them analytically (``_tangent``). Steps: 1e-6 m or rad per coordinate (the
coordinates are O(1) joint values or O(1e-3) deflections); the truncation error is
O(h^2 f''') ~ 1e-12 relative and the round-off eps |f| / h ~ 1e-10 relative, so the
linearized frequencies carry ~1e-10 relative error.
"""
from __future__ import annotations

import numpy as np

from .._validate import real_array
from ..exceptions import InputError, ModelError
from ..model import (Coordinates, Efforts, Linearization, MotionResponse, State,
                     require)

__all__ = ["NonlinearModel", "EXACT_HINT", "REFERENCE_HINT", "FD_STEP", "MAX_DISPLACEMENT_RATIO",
           "MAX_ROTATION_RAD", "DIVERGED_RATIO", "small_deformation_check",
           "beam_extent", "actuated_motion", "motion_function",
           "efforts_along", "motion_response", "GENERIC_METHODS", "INITIAL_STATES"]

INITIAL_STATES = ("static", "zero")
"""Elastic states a motion-driven run can start from."""

GENERIC_METHODS = {"dop853": "DOP853", "radau": "Radau"}
"""--method of the generic motion-driven engine -> solve_ivp's name."""

FD_STEP = 1e-6
"""Central finite-difference step [m or rad] (module docstring)."""

NONLINEAR_CAPABILITIES = frozenset({"state", "mass_matrix", "bias", "linearize",
                                    "steady_motion", "static_deflection",
                                    "inverse_dynamics", "direct_dynamics",
                                    "simulate_motion"})


REFERENCE_HINT = ("the geometrically exact formulation answers there: the same command "
                  "with --formulation {name}")
"""The words of a validity warning's hint, for the reference formulation ``name``
(:func:`~elastodyn.formulations.registry.reference_hint`)."""
EXACT_HINT = REFERENCE_HINT.format(name="exact")
"""Said by a linear (or small-rotation) model's validity warning for a robot the ``exact``
formulation takes (issue 31): where to get the answer the warning withholds."""

MAX_DISPLACEMENT_RATIO = 0.1
MAX_ROTATION_RAD = 0.1
"""The small-deformation range of every model linear (or of small rotation) in its elastic
coordinates (KED, NE-PVP, FFRF, AMM): the largest elastic displacement of a beam's point
up to 10 % of that beam's length, the largest elastic rotation up to 0.1 rad. The
neglected geometric nonlinearity of a beam is of relative order theta^2 (about 1 % at
0.1 rad) and a cantilever whose tip turns by theta deflects by about 2/3 theta L, so the
two limits are of the same order; past them the numbers describe the linearization, not
the robot (Kuo's 0.8 s pick-and-place: about 0.1 m swings)."""
DIVERGED_RATIO = 1.0
"""An elastic displacement larger than the beam's length (or a rotation above 1 rad) is no
small deformation a linear model describes however approximately: the links are far too
soft for the loads, or the model diverged along the motion (NE-PVP without geometric
stiffening on a beam spun above its first frequency: 1e5 m, issue 32). Refused
(ModelError), never reported as a number."""


def small_deformation_check(label: str, ratio, rotation, time, hint: str | None = None
                            ) -> tuple[dict, list]:
    """The validity check of a small-deformation model's run (one text for every
    formulation).

    Parameters
    ----------
    label : str
        The model in words (``linear KED``, ``nepvp``).
    ratio, rotation : array_like, shape (n_t,)
        The largest elastic displacement over its beam's length [-] and the largest
        elastic rotation [rad] at each sample (non-finite: diverged).
    time : array_like, shape (n_t,), or None
        The samples' times [s]; None: a static deflection (no time).
    hint : str or None
        Where the answer is beyond the range (the command of a geometrically exact
        formulation that takes the robot), appended to the warning.

    Returns
    -------
    (summary, warnings) : the largest values (``max_displacement_ratio``,
    ``max_rotation_rad``) and the warnings (empty inside the range).

    Raises
    ------
    ModelError
        Beyond one beam length or 1 rad (:data:`DIVERGED_RATIO`), naming the first time.
    """
    r = np.asarray(ratio, dtype=float).reshape(-1)
    a = np.asarray(rotation, dtype=float).reshape(-1)
    t = None if time is None else np.asarray(time, dtype=float).reshape(-1)
    bad = ~((r <= DIVERGED_RATIO) & (a <= DIVERGED_RATIO))      # NaN is bad too
    rmax = float(np.max(r, initial=0.0)) if not np.isnan(r).any() else float("nan")
    amax = float(np.max(a, initial=0.0)) if not np.isnan(a).any() else float("nan")
    tail = f"; {hint}" if hint else ""
    if bad.any():
        k = int(np.argmax(bad))
        if not (np.isfinite(r).all() and np.isfinite(a).all()):
            raise ModelError(
                f"the {label} model's run diverged (non-finite elastic coordinates"
                f"{'' if t is None else f' from t = {t[k]:.4g} s'}): no small-deformation "
                "model describes that - the links are too soft for the loads, or the "
                f"motion too fast for them; a slower or smoother motion, or stiffer "
                f"links{tail}")
        raise ModelError(
            f"the {label} model's elastic displacement reaches {rmax:.3g} beam lengths "
            f"(rotation {amax:.3g} rad; past one beam length or 1 rad "
            f"{'at the static deflection' if t is None else f'from t = {t[k]:.4g} s'}): "
            "no small-deformation model describes that - the links are too soft for the "
            "loads, or the motion too fast for them (a beam spun above its first "
            "frequency without geometric stiffening diverges); a slower or smoother "
            f"motion, or stiffer links{tail}")
    summary = {"max_displacement_ratio": rmax, "max_rotation_rad": amax}
    msgs = []
    if rmax > MAX_DISPLACEMENT_RATIO or amax > MAX_ROTATION_RAD:
        msgs.append(f"elastic displacements beyond the small-deformation range of the "
                    f"{label} model (largest displacement {100 * rmax:.2g}% of the "
                    f"link length, limit {100 * MAX_DISPLACEMENT_RATIO:g}%; largest "
                    f"rotation {amax:.3g} rad, limit {MAX_ROTATION_RAD:g} rad): the "
                    "numbers describe the linearization, not the robot")
        if hint:
            msgs.append(hint)
    return summary, msgs


def beam_extent(elastic, beams) -> tuple[np.ndarray, np.ndarray]:
    """The largest elastic displacement over its beam's length and the largest elastic
    rotation at each sample, from the beams' shape rows (the ``deformation_extent`` of
    the small-deformation models, :class:`~elastodyn.model.SmallDeformation`).

    Parameters
    ----------
    elastic : array_like, shape (n_t, n_e) or (n_e,)
        Elastic coordinates [m, rad].
    beams : iterable of (columns, D, R, length)
        Per beam: its elastic coordinates' columns (k,), the displacement rows D
        (n_s, d, k) and the rotation rows R (n_s, r, k) at n_s points along it (the
        shape functions and their rotations there), and its length [m].

    Returns
    -------
    ratio, rotation : numpy.ndarray, shape (n_t,)
        [-] and [rad] (zero without beams).
    """
    E = np.atleast_2d(np.real(np.asarray(elastic)))
    ratio = np.zeros(E.shape[0])
    rotation = np.zeros(E.shape[0])
    for cols, D, R, length in beams:
        e = E[:, cols]
        d = np.einsum("sik,tk->tsi", np.real(D), e)
        r = np.einsum("sik,tk->tsi", np.real(R), e)
        ratio = np.fmax(ratio, np.sqrt((d * d).sum(-1)).max(-1) / float(np.real(length)))
        rotation = np.fmax(rotation, np.sqrt((r * r).sum(-1)).max(-1))
        # a non-finite coordinate stays visible (fmax would drop it)
        ratio[~np.isfinite(e).all(-1)] = np.nan
    return ratio, rotation


class NonlinearModel:
    """Base class of the nonlinear formulations (module docstring).

    Subclasses set ``formulation``, ``robot``, ``options``, ``coordinates``,
    ``capabilities`` and implement ``mass_matrix``, ``bias``, ``elastic_stiffness``
    (the linear elastic stiffness: the papers' natural frequencies without preload and
    the static deflection's scale) and ``_complete`` (close the loops of a state: the
    identity for a serial robot); everything else (linearization, statics, inverse and
    direct dynamics, the motion-driven engine) follows. tests/plugins/elastodyn_pendulum
    is a complete example from outside the package.
    """

    formulation = ""
    robot = None
    options: dict = {}
    coordinates: Coordinates
    capabilities = NONLINEAR_CAPABILITIES
    default_preload = False
    mechanisms = 0
    """Zero-frequency modes with the actuators locked (none for these models)."""
    pose_names: tuple | None = None
    """Names of the end-effector pose's coordinates (a planar pose: x, y, theta); None
    where the model does not name them (then the first (up to three) are a position)."""

    # ------------------------------------------------------------------ sizes
    @property
    def n(self) -> int:
        return self.coordinates.n

    @property
    def n_actuated(self) -> int:
        return self.coordinates.n_actuated

    @property
    def n_elastic(self) -> int:
        return self.coordinates.n_elastic

    # ------------------------------------------------------------------ states
    def state(self, *, actuated=None, pose=None, rates=None, accelerations=None,
              elastic=None, elastic_rates=None, elastic_accelerations=None,
              t: float = 0.0) -> State:
        """A closed state from actuated coordinates (or a pose, where the model has an
        inverse kinematics) and elastic coordinates (default zero: undeformed)."""
        if pose is not None:
            if actuated is not None:
                raise InputError("pose", pose, "either a pose or actuated coordinates")
            actuated = self.inverse_kinematics(pose)
        if actuated is None:
            actuated = self.home_actuated()
        st = State.build(self.n_actuated, self.n_elastic, actuated=actuated, rates=rates,
                         accelerations=accelerations, elastic=elastic,
                         elastic_rates=elastic_rates,
                         elastic_accelerations=elastic_accelerations, t=float(t))
        return self._complete(st)

    def home_actuated(self) -> np.ndarray:
        return np.zeros(self.n_actuated)

    def inverse_kinematics(self, pose) -> np.ndarray:
        raise InputError("pose", np.asarray(pose).tolist(),
                         f"actuated coordinates for a {self.formulation} model of this robot "
                         "(no inverse kinematics: give --actuated)")

    def _complete(self, state: State) -> State:  # pragma: no cover - abstract
        raise NotImplementedError

    def at(self, state: State, q=None, v=None, a=None) -> State:
        """``state`` moved to other coordinates / rates / accelerations (loops closed
        again from the current passive joints)."""
        st = state.with_(q=state.q if q is None else real_array(q),   # complex only
                         v=state.v if v is None else real_array(v),   # in a complex
                         a=state.a if a is None else real_array(a))   # step
        return self._complete(st)

    # ------------------------------------------------------------------ motion
    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None) -> MotionResponse:
        """The elastic response to a prescribed actuated motion
        (:class:`~elastodyn.model.SimulatesMotion`) by the generic engine
        (:func:`generic_motion`), which takes no step bound."""
        if integrator_step is not None:
            raise InputError("--integrator-step", integrator_step,
                             f"only for an engine with a step bound ({self.formulation}'s "
                             "engine for this motion has none)")
        return generic_motion(self, trajectory, times, initial=initial, method=method,
                              progress=progress)

    # ------------------------------------------------------------------ dynamics
    def mass_matrix(self, state: State) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def bias(self, state: State) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def residual(self, state: State) -> np.ndarray:
        """M a + c (n,): the generalized forces the actuators must supply; its elastic
        rows vanish on a motion of the model."""
        return self.mass_matrix(state) @ state.a + self.bias(state)

    def inverse_dynamics(self, state: State) -> Efforts:
        """Efforts for the actuated accelerations of ``state`` and the elastic
        accelerations that come with them (the elastic accelerations of ``state`` are
        ignored): M_ee e_dd = -c_e - M_ea qdd_a, tau = M_aa qdd_a + M_ae e_dd + c_a."""
        na = self.n_actuated
        M, c = self.mass_matrix(state), self.bias(state)
        qdd = state.actuated_accelerations
        edd = (np.linalg.solve(M[na:, na:], -c[na:] - M[na:, :na] @ qdd)
               if self.n_elastic else np.zeros(0))
        tau = M[:na, :na] @ qdd + M[:na, na:] @ edd + c[:na]
        return Efforts(tau, edd)

    def direct_dynamics(self, state: State, tau) -> np.ndarray:
        """Accelerations (n,) for efforts tau (n_a,): M qdd = [tau; 0] - c."""
        tau = np.asarray(tau, dtype=float).reshape(self.n_actuated)
        f = -self.bias(state)
        f[:self.n_actuated] += tau
        return np.linalg.solve(self.mass_matrix(state), f)

    # ------------------------------------------------------------------ derivatives
    def _tangent(self, state: State):
        """(K, C) over all coordinates: K = d(M a + c)/dq, C = dc/dqd at ``state``,
        by central differences (module docstring)."""
        n = self.n
        cols_K, cols_C = [], []
        for j in range(n):
            dq = np.zeros(n)
            dq[j] = FD_STEP
            rp = self.residual(self.at(state, q=state.q + dq))
            rm = self.residual(self.at(state, q=state.q - dq))
            cols_K.append((rp - rm) / (2 * FD_STEP))
            vp = self.bias(self.at(state, v=state.v + dq))
            vm = self.bias(self.at(state, v=state.v - dq))
            cols_C.append((vp - vm) / (2 * FD_STEP))
        # complex when the model carries a complex step (frequency_sensitivity)
        K = np.column_stack(cols_K) if n else np.zeros((0, 0))
        C = np.column_stack(cols_C) if n else np.zeros((0, 0))
        return K, C

    def _static_tangent(self, state: State) -> np.ndarray:
        """The matrix of :meth:`static_deflection`'s Newton steps (n, n): the tangent
        K of :meth:`_tangent` unless the model has a cheaper one that converges (the
        stiffness without the velocity forces' position derivatives, which are small
        against it at the slow rates of a quasi-steady state: linear convergence, to the
        same equilibrium, since the test is on the exact residual)."""
        return self._tangent(state)[0]

    def _preload(self, preload):
        return self.default_preload if preload is None else bool(preload)

    def linearize(self, state: State, *, actuators: str = "locked",
                  preload: bool | None = None) -> Linearization:
        """Linear equations about ``state`` (:class:`~elastodyn.model.Linearization`).

        Parameters
        ----------
        state : State
            The reference: its positions, rates (a steady motion: constant actuated
            rates) and accelerations. For natural frequencies take it from
            :meth:`static_deflection` (the deflected equilibrium) or undeformed.
        actuators : {"locked", "free"}
            Locked: the actuated coordinates are held on the reference (the elastic
            coordinates are the free ones); free: all coordinates, efforts through B.
        preload : bool, optional
            False (the default of this formulation when None and ``default_preload`` is
            False): the linear structure, K = the elastic stiffness and no load terms
            (no gravity, no motion), as the papers' tables of natural frequencies; True:
            the tangent of the full model about the state (gravity, geometric
            stiffening, centrifugal and gyroscopic terms of the motion).
        """
        if actuators not in ("locked", "free"):
            raise InputError("actuators", actuators, "locked or free")
        na = self.n_actuated
        sel = slice(na, None) if actuators == "locked" else slice(0, None)
        M = self.mass_matrix(state)
        if self._preload(preload):
            K, C = self._tangent(state)
            F = -self.residual(state)
        else:
            Ke = self.elastic_stiffness()
            K = np.zeros((self.n, self.n), np.result_type(Ke, float))  # complex-step safe
            K[na:, na:] = Ke
            C = np.zeros((self.n, self.n))
            F = np.zeros(self.n)
        B = np.zeros((self.n, na))
        B[:na, :na] = np.eye(na)
        names = self.coordinates
        coords = Coordinates(names.names[sel], names.units[sel], names.kinds[sel])
        return Linearization(M[sel, sel], C[sel, sel], K[sel, sel], F[sel], B[sel], coords,
                             state)

    def elastic_stiffness(self) -> np.ndarray:  # pragma: no cover - abstract
        """The linear elastic stiffness over the elastic coordinates (n_e, n_e)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ equilibria
    def residual_floor(self, state: State) -> float:
        """The round-off of the elastic residual at ``state`` [N, N m] below which
        :meth:`static_deflection` stops (0: its relative test alone). A model whose
        residual carries a round-off of its own (stiff terms evaluated from absolute
        positions) says how large."""
        return 0.0

    def static_deflection(self, state: State, *, tol: float = 1e-11,
                          max_iter: int = 50, inertial: bool = False) -> State:
        """The elastic equilibrium at the actuated positions and rates of ``state``:
        c_e(q_a, e, qd_a, 0) = 0 with qdd_a = 0 (rates zero: statics under gravity;
        constant rates: the quasi-steady deflection of a steady motion); with
        ``inertial`` the actuated accelerations' loads too, M_ea qdd_a + c_e = 0 (the
        quasi-static deflection along a motion). Newton with the tangent stiffness
        K_ee; converged when the elastic residual is below ``tol`` of the elastic
        forces' magnitude |K_ee| |e| (elementwise: the round-off of the residual, where
        large stiffness terms cancel, scales with it).

        Raises
        ------
        ModelError
            No equilibrium (a mechanism, buckling or divergence).
        """
        require(self, "static_deflection", what="static deflection")
        na = self.n_actuated
        acc = np.zeros(self.n)
        if inertial:
            acc[:na] = state.actuated_accelerations
        st = self.at(state, a=acc, v=np.concatenate(
            [state.actuated_rates, np.zeros(self.n_elastic)]))
        Kel = self.elastic_stiffness()
        for _ in range(max_iter):
            r = self.bias(st)[na:]
            if inertial:
                r = r + self.mass_matrix(st)[na:, :na] @ acc[:na]
            ke = Kel @ st.elastic
            scale = max(1.0, float((np.abs(Kel) @ np.abs(st.elastic.real)).max(
                initial=0.0)))
            done = np.abs(r.real).max(initial=0.0) <= max(tol * scale,
                                                          self.residual_floor(st))
            if done and np.iscomplexobj(r):
                # a complex step (frequency_sensitivity): the imaginary part (h times
                # the derivative of the deflection) converged too, on its own scale; it
                # lags the real part by one Newton step (Martins, Sturdza & Alonso
                # 2003, sec. 4: both parts must pass the test)
                done = np.abs(r.imag).max(initial=0.0) <= tol * float(
                    np.abs(ke.imag).max(initial=0.0))
            if done:
                return st
            Kee = self._static_tangent(st)[na:, na:]
            try:
                de = np.linalg.solve(Kee, -r)
            except np.linalg.LinAlgError:
                raise ModelError("static deflection: singular tangent stiffness "
                                 "(a mechanism?)") from None
            q = st.q.astype(np.result_type(st.q, de))
            q[na:] += de
            st = self.at(st, q=q)
        raise ModelError(f"static deflection did not converge in {max_iter} Newton steps "
                         f"(residual {np.abs(r).max():.3g}); buckled or diverging?")


# ------------------------------------------------------------------ motion-driven runs
def actuated_motion(model, traj, times):
    """(q_a, qd_a, qdd_a) (nt, n_a) of a prescribed motion: a joint-space trajectory
    directly, a task-space one through the model's inverse kinematics (rates by the
    derivatives of a cubic spline through the joint values)."""
    smp = traj.evaluate(times)
    if traj.space == "joint":
        if smp.position.shape[1] != model.n_actuated:
            raise InputError("--trajectory", smp.position.shape[1],
                             f"{model.n_actuated} actuated coordinates (joint space)")
        return smp.position, smp.velocity, smp.acceleration
    require(model, "inverse_kinematics", what="a task-space trajectory")
    from scipy.interpolate import CubicSpline
    qa = np.array([model.inverse_kinematics(p) for p in smp.position])
    sp = CubicSpline(times, qa, axis=0)
    return qa, sp(times, 1), sp(times, 2)


def motion_function(traj, times, qa):
    """t -> (q_a, q_a_dot, q_a_ddot) of the prescribed motion: a joint-space trajectory
    itself, a task-space one through a cubic spline of its joint values qa at times."""
    if traj.space == "joint":
        def motion(t):
            s = traj.evaluate(np.array([t]))
            return s.position[0], s.velocity[0], s.acceleration[0]
        return motion
    from scipy.interpolate import CubicSpline
    sp = CubicSpline(times, qa, axis=0)
    return lambda t: (sp(t), sp(t, 1), sp(t, 2))


def _ee_split(model, poses):
    """(positions (n_t, 3) [m], orientations (n_t,) [rad] or None) of end-effector poses:
    a planar pose (x, y, theta) gives (x, y, 0) and theta, a planar position (x, y)
    gives (x, y, 0)."""
    P = np.asarray(poses, dtype=float)
    P = P.reshape(len(P), -1)
    if tuple(model.pose_names or ()) == ("x", "y", "theta"):
        return np.column_stack([P[:, :2], np.zeros(len(P))]), P[:, 2].copy()
    if P.shape[1] < 3:
        P = np.column_stack([P, np.zeros((len(P), 3 - P.shape[1]))])
    return P[:, :3], None


def efforts_along(model, st, times, qa, qda, qdda, E, Ed, progress=None):
    """Efforts (n_t, n_a) from the contract's inverse dynamics (the elastic accelerations
    solved for), end-effector positions, and the rigid efforts and positions at the same
    actuated motion (elastic coordinates zero), at every sample of a motion-driven run
    with elastic coordinates E and rates Ed (n_t, n_e)."""
    ne, na = model.n_elastic, model.n_actuated
    tau, rtau, pose, rpose = [], [], [], []
    for k in range(len(times)):
        st = model.at(st, q=np.concatenate([qa[k], E[k]]), v=np.concatenate([qda[k], Ed[k]]),
                      a=np.concatenate([qdda[k], np.zeros(ne)]))
        tau.append(model.inverse_dynamics(st).tau)
        pose.append(st.pose if st.pose is not None else np.zeros(3))
        rs = model.at(st, q=np.concatenate([qa[k], np.zeros(ne)]),
                      v=np.concatenate([qda[k], np.zeros(ne)]))
        M, c = model.mass_matrix(rs), model.bias(rs)
        rtau.append(M[:na, :na] @ qdda[k] + c[:na])
        rpose.append(rs.pose if rs.pose is not None else np.zeros(3))
        if progress is not None:
            progress(k + 1, len(times))
    return tau, rtau, pose, rpose


def motion_response(model, times, qa, tau, rtau, pose, rpose, elastic, *, method: str,
                    summary=None, warnings=(), description: str = "") -> MotionResponse:
    """A :class:`~elastodyn.model.MotionResponse` from the samples of a run."""
    (pos, ang), (rpos, rang) = _ee_split(model, pose), _ee_split(model, rpose)
    X = np.asarray(elastic, dtype=float).reshape(len(times), model.n_elastic)
    return MotionResponse(np.asarray(times, dtype=float), np.asarray(qa, dtype=float),
                          np.asarray(tau, dtype=float), np.asarray(rtau, dtype=float),
                          pos, rpos, X, ang, rang, summary=dict(summary or {}),
                          warnings=tuple(warnings), method=method,
                          description=description or
                          f"{model.formulation}, {model.n_elastic} elastic dof, {method}")


def generic_motion(model, traj, times, *, initial: str = "static",
                   method: str | None = None, progress=None) -> MotionResponse:
    """The generic motion-driven engine of every model with inverse dynamics: integrate
    (e, e_d) with e_dd from the contract's inverse dynamics along the prescribed
    actuated motion (solve_ivp, DOP853 by default, rtol 1e-9, atol 1e-13)."""
    from ..integrators.bounded import bounded_solve_ivp
    method = method or "dop853"
    if method not in GENERIC_METHODS:
        raise InputError("--method", method, " or ".join(GENERIC_METHODS))
    qa, qda, qdda = actuated_motion(model, traj, times)
    motion = motion_function(traj, times, qa)
    ne = model.n_elastic
    st0 = model.state(actuated=qa[0], rates=qda[0])
    if initial == "static" and ne:
        st0 = model.static_deflection(st0)
    guess = {"st": st0}
    count = [0]

    def rhs(t, x):
        count[0] += 1
        a, ad, add = motion(t)
        st = model.at(guess["st"], q=np.concatenate([a, x[:ne]]),
                      v=np.concatenate([ad, x[ne:]]),
                      a=np.concatenate([add, np.zeros(ne)]))
        guess["st"] = st
        return np.concatenate([x[ne:], model.inverse_dynamics(st).elastic_accelerations])

    x0 = np.concatenate([st0.elastic, st0.elastic_rates])
    sol = bounded_solve_ivp(rhs, (times[0], times[-1]), x0, method=GENERIC_METHODS[method],
                            t_eval=times, rtol=1e-9, atol=1e-13, what="simulation")
    if not sol.success:
        raise ModelError(f"simulation failed: {sol.message}")
    X = sol.y.T
    tau, rtau, pose, rpose = efforts_along(model, st0, times, qa, qda, qdda, X[:, :ne],
                                           X[:, ne:], progress)
    return motion_response(model, times, qa, tau, rtau, pose, rpose, X[:, :ne],
                           method=method, summary={"rhs_evaluations": count[0]})
