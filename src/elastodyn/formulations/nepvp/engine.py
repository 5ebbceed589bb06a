"""Numerical front end of the NE-PVP model: compiled programs, loop closure, static
equilibrium, natural frequencies, inverse and direct dynamics.

The symbolic model (:func:`~elastodyn.formulations.nepvp.generate_nepvp`) is generated
once per robot and split into programs, each pruned to its outputs (Briot IV-E):

==========  ==========================  =====================================
problem     inputs                      outputs
==========  ==========================  =====================================
model       q, e, qd_a, ed              M (n x n), c (n): [tau; 0] = M qdd + c
inverse     q, e, qd_a, ed, qdd_a       tau (n_a), edd (n_e)
direct      q, e, qd_a, ed, tau         qdd_a (n_a), edd (n_e)
closure     q, e                        h (closure residual), D = dh/dq_p
kinematics  q, e, qd_a, ed              qd_p, tp (platform twist rows), xp
==========  ==========================  =====================================

q holds every joint variable (actuated and passive, joint order), e the elastic
coordinates; n = n_a + n_e. Passive joints are not free inputs: :meth:`NEPVPEngine.closure`
solves them from (q_a, e).

The symbolic model is generated on first need only (:attr:`NEPVPEngine.full`): with a C
compiler the numerical problems are served by the library of the compiled driver
(:class:`~elastodyn.formulations.nepvp_driver.MotionDriver`; ``direct`` by one of its
own), cached by a hash of the robot's description and the code, so that a process that
finds it in the cache generates, prints and compiles nothing, and imports no sympy: the
engine knows the model's coordinates from :class:`~elastodyn.formulations.nepvp.layout.
NEPVPLayout`, and the symbolic modules are imported where a program is generated
(issue 30, item 7).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sla

from ..._validate import complex_step_active, real_array
from ...description.tree import TreeRobot
from ...exceptions import InputError, ModelError
from ...symbolic.compiled import compile_program
from .layout import NEPVPLayout

if TYPE_CHECKING:
    from ...symbolic.core import Program
    from .symbolic import NEPVPSymbols

__all__ = ["NEPVPEngine", "PROBLEMS", "CLOSURE_STEP"]

CLOSURE_STEP = 0.05
"""Largest step [m or rad] of the continuation along q_a from the home configuration
that :meth:`NEPVPEngine.closure` (and the exported closure) takes without a guess."""

PROBLEMS = {
    "model": (("q", "e", "qd_a", "ed"), ("M", "c")),
    "inverse": (("q", "e", "qd_a", "ed", "qdd_a"), ("tau", "edd")),
    "direct": (("q", "e", "qd_a", "ed", "tau"), ("qdd_a", "edd_direct")),
    "closure": (("q", "e"), ("h", "D")),
    "kinematics": (("q", "e", "qd_a", "ed"), ("qd_p", "tp", "xp")),
}

_DOC_INPUTS = {
    "q": "joint variables, actuated and passive, in joint order [m or rad]",
    "e": "elastic coordinates (u [m], v [m], rz [rad] of nodes 1..n of each beam)",
    "qd_a": "actuated joint velocities [m/s or rad/s]",
    "ed": "elastic velocities [m/s, rad/s]",
    "qdd_a": "actuated joint accelerations [m/s^2 or rad/s^2]",
    "tau": "actuator efforts [N or N m]",
}
_DOC_OUTPUTS = {
    "M": "mass matrix over (q_a, e), eq. (38) [SI]",
    "c": "remaining forces: [tau; 0] = M qdd + c, eq. (38) [N, N m]",
    "tau": "actuator efforts [N or N m]",
    "edd": "elastic accelerations [m/s^2, rad/s^2]",
    "qdd_a": "actuated accelerations [m/s^2 or rad/s^2]",
    "edd_direct": "elastic accelerations [m/s^2, rad/s^2]",
    "h": "closure residual: terminal positions [m] and orientations [rad] of legs 1..n-1 "
         "minus leg n (base frame, closure rows)",
    "D": "dh/dq_p (Jacobian of the residual with respect to the passive joints)",
    "qd_p": "passive joint velocities",
    "tp": "platform twist, closure rows, base frame [m/s, rad/s]",
    "xp": "platform origin in the base frame [m]",
}


class NEPVPEngine:
    """Elastodynamic model of a flexible parallel robot by NE-PVP (Briot & Khalil 2013).

    Parameters
    ----------
    robot : TreeRobot
    """

    def __init__(self, robot: TreeRobot):
        if not isinstance(robot, TreeRobot):
            raise InputError("robot", type(robot).__name__, "a TreeRobot")
        self.robot = robot
        # built inside a complex step (frequency_sensitivity): the description may carry
        # a complex entry, the programs evaluate in complex arithmetic (never compiled,
        # never looked up in or written to the cache of compiled libraries)
        self.complex = complex_step_active()
        self._full = None
        self._sym = None
        self.layout = NEPVPLayout(robot)
        self._programs: dict = {}
        self._compiled: dict = {}
        s = self.layout
        self.n_joints = len(s.joints)
        self.na, self.ne = s.na, s.ne
        self.actuated = np.array(s.actuated, dtype=int)
        self.passive = np.array(s.passive, dtype=int)
        home = robot.home
        self.home = np.array([home.get(n, 0.0) for n in s.names], dtype=float)

    @property
    def sym(self) -> NEPVPSymbols:
        """The model's symbols (:class:`~elastodyn.formulations.nepvp.symbolic.
        NEPVPSymbols`: the index sets of :attr:`layout` and the sympy symbols), built on
        first access (those of the last generated :attr:`full` program once there is
        one)."""
        if self._sym is None:
            from .symbolic import NEPVPSymbols   # sympy: only where symbols are needed
            self._sym = NEPVPSymbols(self.robot)
        return self._sym

    @property
    def full(self) -> Program:
        """The full symbolic program (:func:`~elastodyn.formulations.nepvp.
        generate_nepvp`), generated on first access; without the direct problem until
        :meth:`program` asks for it (it is then generated again with it)."""
        if self._full is None:
            from .symbolic import generate_nepvp   # sympy: only when generating
            self._full, self._sym = generate_nepvp(self.robot, direct=False)
        return self._full

    def _full_for(self, problem: str) -> Program:
        if problem == "direct" and "edd_direct" not in self.full.outputs:
            from .symbolic import generate_nepvp
            self._full, self._sym = generate_nepvp(self.robot, direct=True)
        return self.full

    @property
    def generation_time_s(self) -> float:
        return self.full.generation_time_s

    # ------------------------------------------------------------------ programs
    def program(self, problem: str = "model") -> Program:
        """The pruned program of ``problem`` (one of PROBLEMS), named
        ``<robot>_<problem>`` with the robot's name made an identifier
        (:func:`~elastodyn.symbolic.core.identifier`: "prrrp-briot2013" ->
        prrrp_briot2013_inverse, "3prr-rosyid2020" -> nepvp_3prr_rosyid2020_inverse)."""
        if problem not in PROBLEMS:
            raise InputError("problem", problem, "one of " + ", ".join(PROBLEMS))
        if problem not in self._programs:
            # sympy (through the symbolic core): only when a program is generated
            from ...symbolic.core import Program, identifier
            ins, outs = PROBLEMS[problem]
            full = self._full_for(problem)
            p = full.with_outputs({k: full.outputs[k] for k in outs}).pruned()
            doc = {"title": f"{self.robot.name}, NE-PVP elastodynamic model (Briot & Khalil "
                            f"2013), {problem} problem",
                   "inputs": {k: _DOC_INPUTS[k] for k in ins},
                   "outputs": {k: _DOC_OUTPUTS[k] for k in outs}}
            name = f"{identifier(self.robot.name, 'nepvp')}_{problem}"
            self._programs[problem] = Program(name, {k: full.inputs[k] for k in ins},
                                              p.assignments, p.outputs, doc,
                                              full.generation_time_s)
        return self._programs[problem]

    def compiled(self, problem: str):
        """The compiled ``problem``: from the driver's library (cached, see the module
        docstring), or generated Python without a C compiler."""
        if problem not in self._compiled:
            if problem not in PROBLEMS:
                raise InputError("problem", problem, "one of " + ", ".join(PROBLEMS))
            if self.complex:
                from ...symbolic.complex_eval import ComplexProgram   # (sympy)
                self._compiled[problem] = ComplexProgram(self.program(problem))
                return self._compiled[problem]
            drv = self.driver()
            if not drv.available:
                fn = compile_program(self.program(problem))
            elif problem in drv.programs:
                fn = drv.programs[problem]
            else:
                from .driver import program_library
                fn = program_library(self, problem)
            self._compiled[problem] = fn
        return self._compiled[problem]

    def driver(self):
        """The compiled motion-driven simulation (:class:`~elastodyn.formulations.
        nepvp_driver.MotionDriver`), built once."""
        if self.complex:
            raise ModelError("a model with a complex-step entry has no compiled driver "
                             "(only its linearization is evaluated, in complex arithmetic)")
        if "driver" not in self._compiled:
            from .driver import MotionDriver
            self._compiled["driver"] = MotionDriver(self)
        return self._compiled["driver"]

    # ------------------------------------------------------------------ kinematics
    def _joints(self, qa, qp):
        q = np.empty(self.n_joints, np.result_type(qa, qp, float))
        q[self.actuated] = qa
        q[self.passive] = qp
        return q

    def closure(self, qa, e=None, guess=None, tol: float = 1e-12, max_iter: int = 50):
        """All joint variables (n_joints,) with the loop closed for actuated variables qa
        and elastic coordinates e (default 0). Newton on the closure residual from
        ``guess`` (a full joint vector; default: the robot's home configuration, reached
        by continuation along q_a in steps of 0.05 m or rad)."""
        qa = real_array(qa).reshape(self.na)
        e = np.zeros(self.ne) if e is None else real_array(e).reshape(self.ne)
        if guess is not None:
            return self._newton(qa, e, real_array(guess)[self.passive], tol, max_iter)
        start = self.home[self.actuated]
        steps = max(1, int(np.ceil(np.abs(qa - start).max() / CLOSURE_STEP)))
        qp = self.home[self.passive]
        for k in range(1, steps + 1):
            q = self._newton(start + (qa - start) * k / steps, e * k / steps, qp, tol,
                             max_iter)
            qp = q[self.passive]
        return q

    def export_closure(self, tol: float = 1e-12, max_iter: int = 50):
        """The loop closure for exported code (:class:`~elastodyn.symbolic.core.Closure`):
        the closure program, the actuated and passive joints, the home configuration and
        the solve of :meth:`closure` (continuation in steps of 0.05 m or rad, Newton to
        max |h| < ``tol``); None without passive joints (an open chain)."""
        if len(self.passive) == 0:
            return None
        from ...symbolic.core import Closure   # (sympy: the closure program is generated)
        return Closure(self.program("closure"), tuple(int(i) for i in self.actuated),
                       tuple(int(i) for i in self.passive),
                       tuple(float(v) for v in self.home), CLOSURE_STEP, tol, max_iter)

    def _newton(self, qa, e, qp, tol, max_iter):
        """The passive joints closing h(q_a, q_p, e) = 0 (Briot eq. 31) from qp, by the
        shared loop-closure Newton (:func:`~elastodyn.kinematics.closure.close_loops`;
        ClosureError, a ModelError, when it fails)."""
        if len(self.passive) == 0:              # one leg: nothing to close
            return self._joints(qa, qp)
        from ...kinematics.closure import close_loops
        f = self.compiled("closure")

        def residual(qp):
            out = f(self._joints(qa, qp), e)
            return out["h"].ravel(), out["D"]
        sol = close_loops(residual, qp, tol=tol, max_iter=max_iter,
                          what=f"the passive joints at q_a = {np.real(qa).tolist()}",
                          hint="out of the workspace?")
        return self._joints(qa, sol.x)

    # ------------------------------------------------------------------ dynamics
    def dynamics(self, q, e, qd_a, ed):
        """M (n, n) and c (n,) of eq. (38) at a closed state (q from :meth:`closure`)."""
        out = self.compiled("model")(q, e, qd_a, ed)
        return out["M"], out["c"].ravel()

    def inverse(self, q, e, qd_a, ed, qdd_a):
        """Inverse problem: actuator efforts tau (n_a,) and elastic accelerations
        (n_e,) for the actuated accelerations qdd_a."""
        out = self.compiled("inverse")(q, e, qd_a, ed, qdd_a)
        return out["tau"].ravel(), out["edd"].ravel()

    def direct(self, q, e, qd_a, ed, tau):
        """Direct problem: actuated and elastic accelerations for efforts tau."""
        out = self.compiled("direct")(q, e, qd_a, ed, tau)
        return out["qdd_a"].ravel(), out["edd_direct"].ravel()

    def kinematics(self, q, e, qd_a, ed):
        """Passive joint velocities, platform twist (closure rows, base frame) and
        platform origin (base frame)."""
        out = self.compiled("kinematics")(q, e, qd_a, ed)
        return out["qd_p"].ravel(), out["tp"].ravel(), out["xp"].ravel()

    # ------------------------------------------------------------------ statics, modes
    @property
    def stiffness(self) -> np.ndarray:
        """K_ee (n_e, n_e): block-diagonal elastic stiffness of the beams."""
        return sla.block_diag(*[sh.stiffness for sh in self.layout.shapes.values()])

    def static_deflection(self, qa, tol: float = 1e-12, max_iter: int = 50):
        """Static equilibrium under gravity with the actuators at qa: (q (n_joints,),
        e (n_e,)), solving c_e(q(q_a, e), e, 0, 0) = 0 by Newton (Jacobian by central
        differences of the compiled model, step 1e-7 of the deflection scale; kept while
        the residual at least halves per iteration, recomputed otherwise: the
        difference Jacobian costs 2 n_e residuals, one iteration one)."""
        e = np.zeros(self.ne)
        q = self.closure(qa, e)
        zero_a, zero_e = np.zeros(self.na), np.zeros(self.ne)

        def resid(e, q):
            q = self.closure(qa, e, guess=q)
            return self.dynamics(q, e, zero_a, zero_e)[1][self.na:], q

        K = self.stiffness
        J, last = None, np.inf
        for _ in range(max_iter):
            r, q = resid(e, q)
            size = np.abs(r).max()
            if size < tol * max(1.0, np.abs(K @ e).max()):
                return q, e
            if J is None or size > 0.5 * last:
                h = 1e-7 * max(1e-3, np.abs(e).max())
                J = np.empty((self.ne, self.ne))
                for k in range(self.ne):
                    dp = e.copy()
                    dp[k] += h
                    dm = e.copy()
                    dm[k] -= h
                    J[:, k] = (resid(dp, q)[0] - resid(dm, q)[0]) / (2 * h)
                lu = sla.lu_factor(J)
            last = size
            e = e - sla.lu_solve(lu, r)
        raise ModelError(f"static equilibrium did not converge at q_a = {list(qa)}")

    def modes(self, qa):
        """Natural frequencies with the actuators locked at qa, about the undeformed
        configuration without gravity preload (a linear structure, as RDM6 in Briot's
        Table II): omega^2 of K_ee phi = omega^2 M_ee phi, M_ee the elastic block of M
        (:func:`~elastodyn.fem.modal.modal_analysis`).

        Returns (omega [rad/s] (n_e,), mass-normalized shapes (n_e, n_e) columns)."""
        from ...fem.modal import modal_analysis
        q = self.closure(qa)
        M, _ = self.dynamics(q, np.zeros(self.ne), np.zeros(self.na), np.zeros(self.ne))
        res = modal_analysis(M[self.na:, self.na:], self.stiffness, count=self.ne)
        return res.omega_rad_s, res.mode_shapes
