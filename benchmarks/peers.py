#!/usr/bin/env python3
"""Benchmarks against peer engines (issue 16, item 5), run side by side in one run.

    python benchmarks/peers.py                       # every section whose peer is importable
    python benchmarks/peers.py --only fivebar        # a section: fivebar, delta, delta-run, rnea
    python benchmarks/peers.py --only fivebar --elements 1 2 --method rk4 --tol 1e-2
    python benchmarks/peers.py --only fivebar --formulation exact --elements 1 2 --repeats 1

Peers (the optional ``bench`` extra): Exudyn (``exudyn``) and Pinocchio (``pin``). A section
whose peer is not importable is skipped with one line. Timings are wall-clock
(time.perf_counter); on a shared 2-core machine they are noisy, so each figure says how many
repeats it is the median of.

Sections
--------
fivebar
    Briot & Khalil 2013 section V: the five-bar PRRRP (preset ``prrrp-briot2013``; prismatic
    actuators q1, q4 along z0, 0.6 m apart; two 0.4 m aluminium beams, 2 mm square; pin
    joints at the carriages A1, A2 and at the platform P; 1 kg point mass at P; gravity
    +9.81 m/s^2 along z0), the bang-bang law (q1: 0 -> 0.1 m, q4: 0 -> 0.2 m in 0.75 s),
    1 s simulated from the static deflection, at 1, 2, 4, 8 elements per beam.

    * elastodyn: NE-PVP (``NEPVPEngine`` + ``simulate_motion``; the integrator is a parameter,
      ``--method``, default the compiled RK4), also timed as a whole process
      (``elastodyn simulate prrrp-briot2013 --trajectory bang-bang --elements N --duration 1``).
    * Exudyn: the same mechanism in the plane, ``ObjectANCFCable2D`` beams (cubic ANCF, the
      same number of elements per beam; fully nonlinear strain, so the tension stiffening
      that elastodyn's von Karman term models is included), the actuated pins as coordinate
      constraints with a prescribed offset (a symbolic user function: no Python call per
      evaluation), the platform a ``MassPoint2D`` pinned to both beam tips, a static solve at
      t = 0 then ``SolveDynamic`` (generalized-alpha, spectral radius 0.9, fixed step).
      The carriages' 1 kg masses are left out of the Exudyn model: their motion is
      prescribed, so they change the actuator forces only, not the platform's motion.

    Physics check first: both engines' platform deviation (flexible minus rigid platform
    position, x0 and z0) at the same mesh, each at a converged step, must agree to a few
    percent (printed). Equal accuracy: each engine's error is estimated against its own
    finer step (the run at half the step, Richardson-corrected with the method's order);
    each engine runs at the largest step of its ladder whose error is below ``--tol`` of the
    peak deviation (elastodyn's RK4 runs at its stability-bound default step, which is
    always far below the tolerance). Times: the solver alone (median of repeats); build +
    solve in one process with the compiled programs cached (for elastodyn the symbolic
    generation, repeated on every build today, and the loading of the driver; for Exudyn
    the model and its static solve); whole processes (fresh interpreter: the
    ``elastodyn simulate`` command, and this file's hidden ``--worker`` mode for Exudyn);
    and elastodyn's first run (cold compile cache unless ELASTODYN_CACHE is set).

delta
    Kuo 2016 Delta (``delta-kuo2016``), natural frequencies at rest per pose: elastodyn's
    KED model (1 element per link, ``reference="undeformed"`` as Kuo, and the deflected
    default) against Exudyn's ``ComputeODE2Eigenvalues`` of the same Delta built from
    ``ObjectBeamGeometricallyExact`` spatial beams (upper arms clamped at the locked motors,
    universal joints at the elbows B_i and at the platform D_i with the KED release axes:
    the motor axis y_i and the lower link's z axis; the platform a rigid body with the
    description's mass and inertia). Physics check at one pose first: without geometric
    stiffness the engines agree to 0.1 % (Exudyn at 16 elements per link); about the
    static equilibrium under gravity modes 4 and 7 (the platform's twist) differ by
    1.6-1.9 %, and ``--delta-dynamics`` shows that Exudyn's eigenvalues about its static
    state are ~2 % below Exudyn's own free vibration there, which is within 0.2 % of
    elastodyn's (8.707 and 17.712 Hz against 8.698 and 17.687: Exudyn's eigenvalues
    about a preloaded state miss a stiffness of the constraint reactions, it seems; 3-4 %
    before the joints at D_i carried y_i on the platform, 2026-11-28). Time per pose:
    build (+ static solve) + eigenvalues for
    Exudyn (at 4 and 8 elements per link: ~1 % and ~0.2 % from converged); elastodyn's
    ``modes`` per pose and its ``frequency_map`` per pose (n = 1: within 0.8 %).

delta-run
    Kuo's pick-and-place on Kuo's Delta (issue 31: the geometrically exact formulation
    side by side with Exudyn's geometrically exact beams): the inverted U, 1.2 s from the
    static deflection under gravity, output step 5 ms, the platform's deviation from the
    rigid path as the accuracy measure.

    * elastodyn: the exact formulation at ``--run-ours`` elements per link (default 4, the
      reference, and 8), as ``benchmarks/exact_speed.py`` and the command line run it
      (``simulate_motion``: static deflection, generalized-alpha rho_inf 0.9 at its
      default step, efforts along), each also at half its step (its step error).
    * Exudyn: ``ExudynDelta`` driven (built at the start pose, static equilibrium, then
      ``SolveDynamic``, generalized-alpha ``--spectral-radius``, index 3, fixed step): the
      clamp of each upper link at A_i turned about y_i by q_a,i(t) - q_a,i(0), the
      trajectory and the rigid inverse kinematics in closed form as a symbolic offset user
      function of the clamp (``ObjectJointGeneric``; evaluated in C++; a Python user
      function costs the same here, printed). Euler-parameter nodes throughout (the
      static solve needs them). A ladder of ``--run-elements`` x ``--run-steps``.

    Physics checks: the sense of the drive (a 1 mrad turn without gravity against
    elastodyn's rigid kinematics), the finest runs of both engines (peak deviations and
    histories; a warning above 10 %). Errors: the largest distance between deviation
    histories over the run relative to the reference's peak deviation: against the half
    step (Richardson, second order), against the yardstick (Exudyn's finest run), and
    against elastodyn's reference. Equal accuracy: Exudyn's cheapest run of the ladder
    that is (a) as accurate against the yardstick, (b) within elastodyn's step error, (c)
    within elastodyn's error against the yardstick, of elastodyn's reference; the ratio
    of wall times, solver only and with the build (and static solve).

rnea
    Model evaluation per call: elastodyn's compiled inverse model (NE-PVP generated C, a
    bound zero-allocation call; it returns tau and the elastic accelerations, so it also
    solves the elastic mass block) of the five-bar and of arm-yu2019 by NE-PVP against
    Pinocchio's ``rnea`` (and ``aba``) on a rigid planar chain with as many revolute joints
    as the model has degrees of freedom. Both are called from Python, so Pinocchio's
    figure is mostly its binding's per-call cost, not its C++ algorithm.
"""
from __future__ import annotations

import os

# one BLAS/OpenMP thread for both engines unless told otherwise: the problems are small
# and the default pools oversubscribe a shared 2-core machine (issue 16); set before numpy
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import collections
import importlib
import math
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

SECTIONS = ("fivebar", "delta", "delta-run", "rnea")
# order of accuracy of each elastodyn integrator for the Richardson error estimate; an
# implicit driver (generalized-alpha / HHT, second order) is added here when it lands
METHOD_ORDER = {"rk4": 4, "dop853": 8, "generalized-alpha": 2, "hht": 2}
# "agree to a few percent": above this relative difference a physics check warns
PHYSICS_TOL = 0.05


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
def peer(name):
    """The imported module ``name``, or None (one line printed) when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        print(f"(skipped: the peer engine '{name}' is not installed: {exc}; "
              f"pip install elastodyn[bench])")
        return None


def median_time(fn, repeats=3):
    """Median wall-clock seconds of ``repeats`` calls of fn() (and the last result)."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def process_time(cmd, env=None):
    """Wall-clock seconds of a whole process (fresh interpreter); raises on failure."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return dt


def table(title, header, rows):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")


def ms(t):
    """Seconds t as ms below 10 s, as s above; empty when not measured (nan)."""
    if not np.isfinite(t):
        return ""
    return f"{t * 1e3:.0f} ms" if t < 10 else f"{t:.1f} s"


# --------------------------------------------------------------------------------------
# fivebar: Briot & Khalil 2013 section V
# --------------------------------------------------------------------------------------
L_BEAM, D_BASE = 0.4, 0.6            # beam length, distance A1 A2 [m] (prrrp_briot2013)
SIDE, E_AL, RHO_AL = 2e-3, 70e9, 2800.0   # square section side [m], aluminium [Pa, kg/m^3]
M_PLATFORM, GRAVITY = 1.0, 9.81      # [kg], [m/s^2] along +z0
T_END = 1.0                          # simulated time [s]
BANG = ((0.0, 0.0), (0.1, 0.2), 0.75)   # q1, q4 from, to [m]; motion time [s]
OUT_STEP = 1e-3                      # output (sensor) step [s]


def rigid_platform(qa):
    """Platform P of the rigid five-bar at actuator positions qa (nt, 2) [m]: the
    intersection of the circles of radius l about A1 = (0, q1) and A2 = (d, q4), on the
    +z0 side (the home branch). Returns (nt, 2): x0, z0 [m]. Independent of both engines."""
    a1 = np.column_stack([np.zeros(len(qa)), qa[:, 0]])
    a2 = np.column_stack([np.full(len(qa), D_BASE), qa[:, 1]])
    d = a2 - a1
    dl = np.linalg.norm(d, axis=1)
    h = np.sqrt(L_BEAM**2 - dl**2 / 4)
    nrm = np.column_stack([-d[:, 1], d[:, 0]]) / dl[:, None]
    return 0.5 * (a1 + a2) + h[:, None] * nrm


def bang_bang():
    from elastodyn.trajectories.bangbang import BangBang
    return BangBang(BANG[0], BANG[1], t0=0.0, tf=BANG[2])


class ElastodynFivebar:
    """elastodyn's five-bar at ``elements`` per beam, integrator ``method`` (a parameter:
    the compiled RK4 today; an implicit driver when it lands)."""

    name = "elastodyn"

    def __init__(self, elements, method="rk4"):
        self.elements, self.method = elements, method
        self.order = METHOD_ORDER.get(method, 2)

    def build(self):
        from elastodyn.description.tree import prrrp_briot2013
        from elastodyn.formulations.nepvp.engine import NEPVPEngine
        self.model = NEPVPEngine(prrrp_briot2013(elements=self.elements))
        self.model.program("inverse")
        return self

    def default_step(self):
        """The stability-bound default of the compiled RK4, min(1e-4 s, 1/omega_max)."""
        return min(1e-4, 1.0 / self.model.modes(np.zeros(2))[0].max())

    def ladder(self):
        """Steps tried from the largest: RK4 runs at its default (explicit: the stability
        bound, not accuracy, sets it); an implicit method tries accuracy-led steps."""
        if self.method == "rk4":
            return [self.default_step()]
        return [1e-3 / 2**k for k in range(8)]

    def solve(self, h):
        """Platform deviation (nt, 2) [m] on the 1 ms output grid; h the step bound [s]."""
        from elastodyn.formulations.nepvp.simulation import simulate_motion
        r = simulate_motion(self.model, bang_bang(), end=T_END, step=OUT_STEP,
                            method=self.method, max_step=h)
        self.evaluations = r.evaluations
        return r.ee_position - rigid_platform(_bang_positions(r.time))

    def command(self, h):
        cmd = [sys.executable, "-m", "elastodyn", "simulate", "prrrp-briot2013",
               "--trajectory", "bang-bang", "--elements", str(self.elements),
               "--duration", str(T_END)]
        cmd += ["--method", self.method]
        if self.method != "rk4":   # the step the ladder chose (RK4: its own default)
            cmd += ["--integrator-step", repr(float(h))]
        return cmd


class ElastodynExactFivebar(ElastodynFivebar):
    """elastodyn's geometrically exact formulation on the five-bar (issue 31: planar
    corotational beams, the passive joints by exact loop closure, generalized-alpha with
    rho_inf 0.9 at the step h): the like-for-like peer of Exudyn's ANCF cables (both
    fully nonlinear beams, both generalized-alpha)."""

    name = "elastodyn"

    def __init__(self, elements, method="generalized-alpha"):
        self.elements, self.method, self.order = elements, "generalized-alpha", 2

    def build(self):
        from elastodyn.description.tree import prrrp_briot2013
        from elastodyn.formulations.registry import build_model
        self.model = build_model(prrrp_briot2013(), "exact", elements=self.elements)
        return self

    def ladder(self):
        return [1e-3 / 2**k for k in range(6)]

    def solve(self, h):
        """Platform deviation (nt, 2) [m] (x0, z0) on the 1 ms output grid at the
        integrator step h [s]."""
        from elastodyn.timegrid import uniform_times
        t = uniform_times(0.0, T_END, OUT_STEP)
        # the run alone: its own step ladder here is the error estimate (the command
        # line's run adds one, Richardson against twice the step)
        r = self.model.simulate_motion(bang_bang(), t, initial="static",
                                       integrator_step=h, step_error=False)
        self.evaluations = int(r.summary.get("newton_iterations", 0))
        return r.ee_position[:, [0, 2]] - rigid_platform(_bang_positions(r.time))

    def command(self, h):
        return [sys.executable, "-m", "elastodyn", "simulate", "prrrp-briot2013",
                "--trajectory", "bang-bang", "--elements", str(self.elements),
                "--duration", str(T_END), "--formulation", "exact",
                "--integrator-step", repr(float(h))]


class ExudynFivebar:
    """The same five-bar in Exudyn: ObjectANCFCable2D beams, generalized-alpha."""

    name = "Exudyn"
    order = 2   # generalized-alpha

    def __init__(self, elements, spectral_radius=0.9):
        self.elements, self.rho_inf = elements, spectral_radius

    def ladder(self):
        return [1e-4 / 2**k for k in range(6)]

    def build(self):
        import exudyn as exu
        from exudyn.itemInterface import (
            CoordinateConstraint, LoadMassProportional, MarkerBodyMass, MarkerNodeCoordinate,
            MassPoint2D, NodePoint2D, NodePoint2DSlope1, NodePointGround, ObjectANCFCable2D,
            SensorNode)
        from exudyn.utilities import CreateSymbolicUserFunction

        n = self.elements
        sc = exu.SystemContainer()
        mbs = sc.AddSystem()
        area, inertia = SIDE**2, SIDE**4 / 12
        P = np.array([D_BASE / 2, math.sqrt(L_BEAM**2 - D_BASE**2 / 4)])
        g = [0.0, GRAVITY, 0.0]   # Exudyn's plane x-y is elastodyn's x0-z0
        ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0]))
        mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
        self._keep = []            # symbolic user functions must outlive the system
        tips = []
        (q1a, q4a), (q1b, q4b), tf = BANG
        for a0, (qa, qb) in ((np.array([0.0, 0.0]), (q1a, q1b)),
                             (np.array([D_BASE, 0.0]), (q4a, q4b))):
            t = (P - a0) / L_BEAM
            nodes = [mbs.AddNode(NodePoint2DSlope1(
                referenceCoordinates=[*(a0 + k * L_BEAM / n * t), *t])) for k in range(n + 1)]
            for k in range(n):
                el = mbs.AddObject(ObjectANCFCable2D(
                    length=L_BEAM / n, massPerLength=RHO_AL * area, bendingStiffness=E_AL * inertia,
                    axialStiffness=E_AL * area, nodeNumbers=[nodes[k], nodes[k + 1]],
                    visualization={"show": False, "drawHeight": 0.0, "color": [-1.0] * 4}))
                mass = mbs.AddMarker(MarkerBodyMass(bodyNumber=el))
                mbs.AddLoad(LoadMassProportional(markerNumber=mass, loadVector=g))
            # actuated pin at A: displacement x = 0, z = q(t) (bang-bang, BangBang's formula)
            mx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=0))
            mz = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=1))
            mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mx]))
            co = mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mz]))
            f = CreateSymbolicUserFunction(mbs, _bang_offset(exu, qa, qb, tf),
                                           "offsetUserFunction", co)
            self._keep.append(f)
            mbs.SetObjectParameter(co, "offsetUserFunction", f)
            tips.append(nodes[-1])
        # platform: point mass at P pinned to both tips (positions equal, slopes free)
        nP = mbs.AddNode(NodePoint2D(referenceCoordinates=list(P)))
        oP = mbs.AddObject(MassPoint2D(mass=M_PLATFORM, nodeNumber=nP))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=oP)),
                                         loadVector=g))
        for other in (tips[1], nP):
            for c in (0, 1):
                m0 = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=tips[0], coordinate=c))
                m1 = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=other, coordinate=c))
                mbs.AddObject(CoordinateConstraint(markerNumbers=[m0, m1]))
        self.sensor = mbs.AddSensor(SensorNode(nodeNumber=nP, storeInternal=True,
                                               outputVariableType=exu.OutputVariableType.Position))
        mbs.Assemble()
        ss = exu.SimulationSettings()
        ss.solution.file.write = False
        ss.solution.sensors.writePeriod = OUT_STEP
        ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
        ss.displayComputationTime = False
        ss.displayStatistics = False
        # static equilibrium at t = 0 (the static solver evaluates the user functions at
        # the end of its load step: make it ~0), as elastodyn's static start
        ss.staticSolver.loadStepDuration = 1e-9
        ss.staticSolver.newton.relativeTolerance = 1e-10
        ss.staticSolver.verboseMode = 0
        exu.SolveStatic(mbs, ss)
        sd, initial = mbs.systemData, exu.ConfigurationType.Initial
        sd.SetODE2Coordinates(sd.GetODE2Coordinates(), initial)
        sd.SetAECoordinates(sd.GetAECoordinates(), initial)
        ss.timeIntegration.endTime = T_END
        ss.timeIntegration.generalizedAlpha.spectralRadius = self.rho_inf
        ss.timeIntegration.verboseMode = 0
        self.exu, self.mbs, self.settings = exu, mbs, ss
        self.initial = (mbs.systemData.GetODE2Coordinates(exu.ConfigurationType.Initial),
                        mbs.systemData.GetAECoordinates(exu.ConfigurationType.Initial))
        return self

    def solve(self, h):
        """Platform deviation (nt, 2) [m] on the 1 ms output grid; h the fixed step [s]."""
        ss = self.settings
        ss.timeIntegration.numberOfSteps = int(round(T_END / h))
        self.exu.SolveDynamic(self.mbs, ss)
        data = self.mbs.GetSensorStoredData(self.sensor)
        t, P = data[:, 0], data[:, 1:3]
        self.evaluations = ss.timeIntegration.numberOfSteps
        return P - rigid_platform(_bang_positions(t))

    def command(self, h):
        return [sys.executable, os.path.abspath(__file__), "--worker", "exudyn-fivebar",
                str(self.elements), repr(h)]


def _bang_offset(exu, qa, qb, tf):
    """Exudyn offset user function q(t) of the bang-bang law (BangBang's formula), written
    with symbolic IfThenElse so Exudyn evaluates it without calling Python."""
    tm, a, d = tf / 2, 4 * (qb - qa) / tf**2, qb - qa

    def offset(mbs, t, itemNumber, lOffset):
        es = exu.symbolic
        R = es.Real
        fall = R(d) - R(0.5 * a) * (R(tf) - t) * (R(tf) - t)
        return R(qa) + es.IfThenElse(t < R(tm), R(0.5 * a) * t * t,
                                     es.IfThenElse(t < R(tf), fall, R(d)))
    return offset


def _bang_positions(t):
    """Actuator positions (nt, 2) [m] of the bang-bang law at times t (nt,) [s], by
    BangBang's formula in numpy (the Exudyn worker process does not import elastodyn;
    checked against elastodyn's BangBang in bench_fivebar)."""
    t = np.asarray(t, dtype=float)[:, None]
    (qa, qb), tf = np.array(BANG[:2]), BANG[2]
    a, d = 4 * (qb - qa) / tf**2, qb - qa
    rise = qa + 0.5 * a * t**2
    fall = qa + d - 0.5 * a * (tf - t) ** 2
    return np.where(t < tf / 2, rise, np.where(t < tf, fall, qb + 0 * t))


def deviation_error(a, ref, order):
    """Richardson estimate of the error of ``a`` (run at step h) from ``ref`` (at h/2) for
    a method of order p: |a - ref| 2^p / (2^p - 1), in the max norm over time and the two
    components, relative to the peak |ref|."""
    f = 2.0**order / (2.0**order - 1)
    return f * np.abs(a - ref).max() / np.abs(ref).max()


def pick_step(engine, tol, log):
    """The largest step h of engine's ladder whose error estimate (against the run at h/2)
    is at most tol; the smallest step of the ladder if none is. Returns (h, deviation at
    h, error estimate, solver seconds at h, deviation at h/2)."""
    steps = engine.ladder()
    h = steps[0]
    t0 = time.perf_counter()
    dev = engine.solve(h)
    t_solve = time.perf_counter() - t0
    while True:
        t0 = time.perf_counter()
        ref = engine.solve(h / 2)
        t_ref = time.perf_counter() - t0
        err = deviation_error(dev, ref, engine.order)
        log(f"  {engine.name} n={engine.elements}: h = {h:.3g} s, error {err:.2e} "
            f"({t_solve:.2f} s)")
        if err <= tol or h <= steps[-1] * (1 + 1e-9):
            return h, dev, err, t_solve, ref
        h, dev, t_solve = h / 2, ref, t_ref


def bench_fivebar(elements=(1, 2, 4, 8), method="rk4", tol=1e-2, repeats=3, processes=True,
                  spectral_radius=0.9, log=print, formulation="nepvp"):
    exu = peer("exudyn")
    if exu is None:
        return None
    warnings.simplefilter("ignore")
    os.environ.setdefault("ELASTODYN_CACHE", tempfile.mkdtemp(prefix="elastodyn-bench-"))
    ElastodynFivebar(1, method).build()          # warm-up: imports, compiler check
    tt = np.linspace(0, T_END, 1001)
    assert np.allclose(_bang_positions(tt), bang_bang().evaluate(tt).position, rtol=0, atol=1e-15)
    rows, phys = [], []
    for n in elements:
        res = {}
        ours = (ElastodynExactFivebar(n) if formulation == "exact"
                else ElastodynFivebar(n, method))
        for eng in (ours, ExudynFivebar(n, spectral_radius)):
            # first run: build + solve at the first step of the ladder (elastodyn: symbolic
            # generation and, on a cold cache, the C compilation of the programs)
            t0 = time.perf_counter()
            eng.build()
            eng.solve(eng.ladder()[0])
            t_cold = time.perf_counter() - t0
            h, dev, err, _, ref = pick_step(eng, tol, log)
            # warm: build again (compiled programs cached) and solve once (elastodyn: the
            # driver's source, its hash and loading come with the first solve of a model),
            # then the solver alone
            t0 = time.perf_counter()
            eng.build()
            eng.solve(h)
            t_whole = time.perf_counter() - t0
            t_solve, _ = median_time(lambda: eng.solve(h), repeats)
            t_proc = process_time(eng.command(h)) if processes else float("nan")
            res[eng.name] = dict(h=h, dev=dev, ref=ref, err=err, solve=t_solve, whole=t_whole,
                                 cold=t_cold, proc=t_proc, evals=eng.evaluations)
        e, x = res["elastodyn"], res["Exudyn"]
        # physics check: the two engines' converged (finer-step) deviations at this mesh
        dz = np.abs(e["ref"] - x["ref"])
        phys.append((n, dz[:, 0].max() / np.abs(e["ref"][:, 0]).max(),
                     dz[:, 1].max() / np.abs(e["ref"][:, 1]).max(),
                     np.abs(e["ref"][:, 1]).max()))
        rows.append((n, e, x))
    table("Five-bar bang-bang, physics check: platform deviation (flexible - rigid), "
          "elastodyn vs Exudyn at the same mesh, each at its finer step",
          ["elements per beam", "max |diff| / peak, x0", "max |diff| / peak, z0",
           "peak deviation z0"],
          [(n, f"{a:.1%}", f"{b:.1%}", f"{c * 1e6:.1f} um") for n, a, b, c in phys])
    worst = max(max(a, b) for _, a, b, _ in phys)
    if worst > PHYSICS_TOL:
        print(f"\nWARNING: the engines disagree on the platform deviation by {worst:.1%} "
              f"(> {PHYSICS_TOL:.0%}): the times below compare different mechanisms")
    table(f"Five-bar bang-bang, 1 s, equal accuracy (error < {tol:g} of the peak deviation; "
          f"elastodyn {formulation} {ours.method}, Exudyn generalized-alpha rho_inf "
          f"{spectral_radius}); "
          f"solver: median of {repeats}; build + solve: warm cache, one process",
          ["elements per beam", "elastodyn step / error", "Exudyn step / error",
           "elastodyn solver", "Exudyn solver", "solver ratio", "elastodyn build + solve",
           "Exudyn build + solve", "whole-run ratio", "elastodyn process", "Exudyn process",
           "process ratio", "elastodyn first run (build + solve; cold cache unless "
           "ELASTODYN_CACHE is set)"],
          [(n, f"{e['h']:.2g} s / {e['err']:.1e}", f"{x['h']:.2g} s / {x['err']:.1e}",
            ms(e["solve"]), ms(x["solve"]), _ratio(e["solve"], x["solve"]),
            ms(e["whole"]), ms(x["whole"]), _ratio(e["whole"], x["whole"]),
            ms(e["proc"]), ms(x["proc"]), _ratio(e["proc"], x["proc"]), ms(e["cold"]))
           for n, e, x in rows])
    return rows, phys


def _ratio(ours, theirs):
    """'Kx faster' or 'Kx slower' for elastodyn's time ``ours`` against the peer's."""
    if not (ours > 0 and theirs > 0):
        return ""
    r = theirs / ours
    return f"{r:.1f}x faster" if r >= 1 else f"{1 / r:.1f}x slower"


def _exudyn_fivebar_worker(n, h):
    """Whole-process run of the Exudyn model (build + static + dynamic solve)."""
    ExudynFivebar(int(n)).build().solve(float(h))


# --------------------------------------------------------------------------------------
# delta: natural frequencies per pose, Kuo 2016 Delta
# --------------------------------------------------------------------------------------
def delta_geometry(ked, X):
    """The rigid pose of elastodyn's KED Delta at platform centre X (3,) [m] and its data,
    as plain arrays for the Exudyn model: A, B, D (3 legs, 3) joint points; Ru, Rl (3, 3,
    3) link frames (columns x, y, z; x along the link); y (3, 3) motor axes; section,
    material, platform body, gravity. The link lengths are checked here."""
    r = ked.robot
    mo = ked.motion(np.asarray(X, dtype=float)[None])
    g = r.geometry
    A, B, D = mo.A, mo.B[0], mo.D[0]
    assert np.allclose(np.linalg.norm(B - A, axis=1), g.upper_length, atol=1e-12)
    assert np.allclose(np.linalg.norm(D - B, axis=1), g.lower_length, atol=1e-12)
    assert np.allclose(np.linalg.norm(D - X, axis=1), g.platform_radius, atol=1e-12)
    sec, mat, body = r.section, r.material, r.carried_body
    assert r.lower_section is None and r.lower_material is None, "one section for all links"
    return dict(A=A, B=B, D=D, X=np.asarray(X, dtype=float), Ru=mo.Ru[0], Rl=mo.Rl[0], y=mo.y,
                area=sec.area, iy=sec.iy, iz=sec.iz, j=sec.j, ip=sec.ip,
                E=mat.E, G=mat.G, rho=mat.rho, mass=body.mass, com=np.array(body.com),
                inertia=np.array(body.inertia), gravity=list(r.gravity),
                joints=(r.joint_b, r.joint_d))


class ExudynDelta:
    """Kuo's Delta in Exudyn at one pose: ``ObjectBeamGeometricallyExact`` spatial beams
    (``elements`` per link; rigid-body nodes with rotation vectors, Lie group, about the
    undeformed pose; with Euler parameters when ``static``: Exudyn's static solver diverged
    from the first Newton step with the Lie-group nodes here), the upper links clamped
    at A_i (locked motors), universal joints (``ObjectJointGeneric``, rotations free about
    the motor axis y_i and the lower link's z axis, locked about their normal: the KED
    release axes) at B_i and D_i, the platform an ``ObjectRigidBody``; gravity on all.

    ``drive``: the motors driven instead of locked (implies ``static``: built at the
    geometry's pose, the static equilibrium at t = 0, then :meth:`run`). A sequence of 3
    functions ``f(ops, t)`` -> the rotation [rad] of upper link i about its motor axis
    y_i from the built pose at time t [s], written with ``ops`` (``sqrt``, ``acos``,
    ``atan``, ``clip``) and arithmetic only, so that the same formula runs as an Exudyn
    symbolic user function (``symbolic``, default: evaluated in C++, no Python call per
    evaluation) or as a Python one. It is the offset of the clamp joint at A_i: Exudyn
    adds the user function's rotation components to the joint frame J0 as Tait-Bryan
    angles, and J0's y axis is y_i (J0 = R_u). A sensor records the platform centre."""

    static_atol = None
    """Absolute Newton tolerance [N] of the static solve (None: Exudyn's, 1e-10; a model
    without load needs more: its residual stalls at ~1e-8 N of round-off)."""

    def __init__(self, geo, elements=4, static=False, drive=None, symbolic=True):
        self.geo, self.elements = geo, elements
        self.static = static or drive is not None
        self.drive, self.symbolic = drive, symbolic

    def build(self, extra=None):
        """Build (and with ``static`` solve the static equilibrium); ``extra(mbs, exu,
        platform_node)`` adds items before the assembly."""
        import exudyn as exu
        from exudyn.itemInterface import (
            LoadMassProportional, MarkerBodyMass, MarkerBodyRigid, MarkerNodeRigid,
            NodeRigidBodyEP, NodeRigidBodyRotVecLG, ObjectBeamGeometricallyExact, ObjectGround,
            ObjectJointGeneric,
            ObjectRigidBody, VObjectBeamGeometricallyExact, VObjectJointGeneric)
        from exudyn.rigidBodyUtilities import (RotationMatrix2EulerParameters,
                                               RotationMatrix2RotationVector)

        geo, m = self.geo, self.elements
        if geo["joints"] != ("universal", "universal"):
            raise NotImplementedError(f"joints {geo['joints']}: only universal-universal here")
        mbs = exu.SystemContainer().AddSystem()
        bs = exu.BeamSection()
        ga = geo["G"] * geo["area"] * 5 / 6      # shear stiffness, rectangle (KED: none)
        bs.stiffnessMatrix = np.diag([geo["E"] * geo["area"], ga, ga, geo["G"] * geo["j"],
                                      geo["E"] * geo["iy"], geo["E"] * geo["iz"]])
        bs.massPerLength = geo["rho"] * geo["area"]
        bs.inertia = geo["rho"] * np.diag([geo["ip"], geo["iy"], geo["iz"]])
        g = geo["gravity"]
        ground = mbs.AddObject(ObjectGround())

        def load(body):
            mass = mbs.AddMarker(MarkerBodyMass(bodyNumber=body))
            mbs.AddLoad(LoadMassProportional(markerNumber=mass, loadVector=g))

        if self.static:
            def node(p, R):
                return mbs.AddNode(NodeRigidBodyEP(
                    referenceCoordinates=list(p) + list(RotationMatrix2EulerParameters(R))))
        else:
            def node(p, R):
                return mbs.AddNode(NodeRigidBodyRotVecLG(
                    referenceCoordinates=list(p) + list(RotationMatrix2RotationVector(R))))

        def beam(p0, p1, R):
            nodes = [node(p0 + (p1 - p0) * k / m, R) for k in range(m + 1)]
            for k in range(m):
                load(mbs.AddObject(ObjectBeamGeometricallyExact(
                    nodeNumbers=[nodes[k], nodes[k + 1]], length=np.linalg.norm(p1 - p0) / m,
                    sectionData=bs, visualization=VObjectBeamGeometricallyExact(show=False))))
            return nodes

        def joint(m0, m1, axes, r0, r1):
            return mbs.AddObject(ObjectJointGeneric(
                markerNumbers=[m0, m1], constrainedAxes=axes, rotationMarker0=r0,
                rotationMarker1=r1, visualization=VObjectJointGeneric(show=False)))

        X = geo["X"]
        nP = self.platform_node = node(X, np.eye(3))
        I = geo["inertia"]
        oP = mbs.AddObject(ObjectRigidBody(
            mass=geo["mass"], nodeNumber=nP, centerOfMass=list(geo["com"]),
            inertia=[I[0, 0], I[1, 1], I[2, 2], I[1, 2], I[0, 2], I[0, 1]]))
        load(oP)
        for i in range(3):
            A, B, D, Ru, Rl, y = (geo[k][i] for k in ("A", "B", "D", "Ru", "Rl", "y"))
            up, lo = beam(A, B, Ru), beam(B, D, Rl)
            clamp = joint(mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=list(A))),
                          mbs.AddMarker(MarkerNodeRigid(nodeNumber=up[0])), [1] * 6, Ru, np.eye(3))
            if self.drive is not None:
                self._drive_joint(mbs, exu, clamp, self.drive[i])
            w = np.cross(y, Rl[:, 2])
            Rj = np.column_stack([w / np.linalg.norm(w), y, Rl[:, 2]])
            # joint frame: x locked, y = y_i, z = z_l free; Exudyn's universal joint keeps
            # marker 0's y axis normal to marker 1's z axis, so marker 0 is the body that
            # carries y_i (KED's and the exact model's joints): the upper link at B, the
            # platform at D (the other way round at D the rigid motion itself violates
            # the joint: the platform must turn or the links bend along the path)
            universal = [1, 1, 1, 1, 0, 0]
            joint(mbs.AddMarker(MarkerNodeRigid(nodeNumber=up[-1])),
                  mbs.AddMarker(MarkerNodeRigid(nodeNumber=lo[0])), universal, Ru.T @ Rj, Rl.T @ Rj)
            joint(mbs.AddMarker(MarkerBodyRigid(bodyNumber=oP, localPosition=list(D - X))),
                  mbs.AddMarker(MarkerNodeRigid(nodeNumber=lo[-1])), universal, Rj, Rl.T @ Rj)
        if extra is not None:
            extra(mbs, exu, nP)
        if self.drive is not None:
            from exudyn.itemInterface import SensorNode
            self.sensor = mbs.AddSensor(SensorNode(
                nodeNumber=nP, storeInternal=True,
                outputVariableType=exu.OutputVariableType.Position))
        mbs.Assemble()
        ss = exu.SimulationSettings()
        ss.solution.file.write = False
        ss.displayComputationTime = False
        ss.displayStatistics = False
        ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
        if self.static:     # about the static equilibrium under gravity (the sag)
            ss.staticSolver.verboseMode = 0
            ss.staticSolver.numberOfLoadSteps = 2
            if self.drive is not None:
                # the static solver evaluates the offsets at the end of its load steps
                # (t = 1 s by default: a pose of the motion): make that t ~ 0, the start
                ss.staticSolver.loadStepDuration = 1e-9
            if self.static_atol is not None:
                ss.staticSolver.newton.absoluteTolerance = self.static_atol
            exu.SolveStatic(mbs, ss)
            sd, cfg = mbs.systemData, exu.ConfigurationType
            sd.SetSystemState(sd.GetSystemState(cfg.Current), cfg.Initial)
        self.mbs, self.settings, self._exu = mbs, ss, exu
        return self

    def _drive_joint(self, mbs, exu, joint, angle):
        """The clamp ``joint`` at A_i turned about its frame's y axis (y_i) by angle(ops,
        t) [rad]: the offset user function (symbolic or Python, the class docstring)."""
        if self.symbolic:
            from exudyn.utilities import CreateSymbolicUserFunction
            es = exu.symbolic
            ops = _Ops(es.sqrt, es.acos, es.atan, lambda x: es.min(es.max(x, 0.0), 1.0))

            def offset(mbs, t, itemNumber, offsetUserFunctionParameters):
                z = es.Real(0.0)
                return [z, z, z, z, angle(ops, t), z]
            f = CreateSymbolicUserFunction(mbs, offset, "offsetUserFunction", joint)
            self._keep = getattr(self, "_keep", []) + [f]   # must outlive the system
        else:
            ops = _Ops(math.sqrt, math.acos, math.atan, lambda x: min(max(x, 0.0), 1.0))

            def f(mbs, t, itemNumber, offsetUserFunctionParameters):
                return [0.0, 0.0, 0.0, 0.0, angle(ops, t), 0.0]
        mbs.SetObjectParameter(joint, "offsetUserFunction", f)

    def run(self, duration, step, rho_inf=0.9, out_step=5e-3, newton_rtol=1e-6):
        """The driven run from the static equilibrium: generalized-alpha (``rho_inf``;
        index 3: the offset user functions act only there), fixed step ``step`` [s] over
        ``duration`` [s] (Exudyn halves a step whose Newton fails); the platform centre on
        the output grid ``out_step`` [s]. ``newton_rtol``: Newton's tolerance on the
        residual relative to the step's first one (Exudyn's default, 1e-8, is at the
        round-off floor of the index-3 iteration matrix here: Newton stalls at 1.1e-8 at
        16 elements per link and 1.25 ms, and the run stops). Returns (t (nt,) [s],
        positions (nt, 3) [m]); ``self.stats`` the solver's counts (Newton iterations,
        Jacobians, steps)."""
        if self.drive is None:
            raise ValueError("run: a driven model (drive=...)")
        exu, ss = self._exu, self.settings
        ss.timeIntegration.numberOfSteps = int(round(duration / step))
        ss.timeIntegration.endTime = duration
        ss.timeIntegration.generalizedAlpha.spectralRadius = rho_inf
        ss.timeIntegration.newton.relativeTolerance = newton_rtol
        ss.timeIntegration.verboseMode = 0
        ss.solution.sensors.writePeriod = out_step
        if not exu.SolveDynamic(self.mbs, ss):
            raise RuntimeError(f"Exudyn: the run at step {step:g} s failed")
        it = self.mbs.sys["dynamicSolver"].it
        # Exudyn halves a step whose Newton fails (adaptiveStep): the steps it took
        self.stats = dict(newton=int(it.newtonStepsCount), jacobians=int(it.newtonJacobiCount),
                          steps=int(it.currentStepIndex))
        data = self.mbs.GetSensorStoredData(self.sensor)
        return data[:, 0], data[:, 1:4]

    def twist_vibration(self, duration=8.0, step=1e-3, torque=0.02, pulse=2e-3):
        """Independent check of the eigenvalues about the static state: Exudyn's own
        nonlinear dynamics. From the static equilibrium, a torque pulse about Z on the
        platform (``torque`` N m for ``pulse`` s), free vibration for ``duration`` s
        (generalized-alpha, rho_inf 1: no numerical damping; period error (w h)^2 / 12,
        0.1 % at 17 Hz with 1 ms), FFT (Hann window, 16x zero padding) of the platform's
        angular velocity about Z. Returns the spectral peaks above 5 % of the largest,
        [(frequency Hz, relative height)], ascending. Needs ``static``; rebuilds."""
        from exudyn.itemInterface import LoadTorqueVector, MarkerNodeRigid, SensorNode

        if not self.static:
            raise ValueError("twist_vibration: about the static equilibrium (static=True)")
        store = {}

        def extra(mbs, exu, node):
            def pulse_torque(mbs, t, load):
                return [0.0, 0.0, torque] if t < pulse else [0.0, 0.0, 0.0]
            mk = mbs.AddMarker(MarkerNodeRigid(nodeNumber=node))
            mbs.AddLoad(LoadTorqueVector(markerNumber=mk, loadVector=[0, 0, 0],
                                         loadVectorUserFunction=pulse_torque))
            store["sensor"] = mbs.AddSensor(SensorNode(
                nodeNumber=node, storeInternal=True,
                outputVariableType=exu.OutputVariableType.AngularVelocity))
        self.build(extra)
        import exudyn as exu
        ss = self.settings
        ss.timeIntegration.numberOfSteps = int(round(duration / step))
        ss.timeIntegration.endTime = duration
        ss.timeIntegration.generalizedAlpha.spectralRadius = 1.0
        ss.timeIntegration.verboseMode = 0
        ss.solution.sensors.writePeriod = step
        exu.SolveDynamic(self.mbs, ss)
        w = self.mbs.GetSensorStoredData(store["sensor"])
        y = w[w[:, 0] > 2 * pulse, 3]
        y = (y - y.mean()) * np.hanning(len(y))
        Y = np.abs(np.fft.rfft(y, 16 * len(y)))
        f = np.fft.rfftfreq(16 * len(y), step)
        k = np.flatnonzero((Y[1:-1] > Y[:-2]) & (Y[1:-1] > Y[2:]) & (Y[1:-1] > 0.05 * Y.max())) + 1
        return [(float(f[i]), float(Y[i] / Y.max())) for i in k]

    def frequencies(self, count=8):
        """Lowest ``count`` natural frequencies [Hz] (constraints projected out by Exudyn)."""
        f, _ = self.mbs.ComputeODE2Eigenvalues(self.settings, useSparseSolver=False,
                                               convert2Frequencies=True)
        return np.sort(f)[:count]


def circle_poses(circle, points):
    """``points`` equally spaced poses [m] on a periodic path, from its start (the
    ``map`` verb's circle)."""
    t = circle.t_start + np.arange(points) / points * circle.period
    return circle.evaluate(t).position


def bench_delta(poses=12, map_points=360, exudyn_elements=(4, 8), count=8, dynamics=False,
                log=print):
    exu = peer("exudyn")
    if exu is None:
        return None
    warnings.simplefilter("ignore")
    from elastodyn.analysis.modes import frequency_map
    from elastodyn.description.presets import get_preset
    from elastodyn.formulations.registry import build_model
    from elastodyn.trajectories import Circle

    spec = get_preset("delta-kuo2016")
    pts = circle_poses(Circle.kuo2016(), poses)
    # physics check at the first pose: like for like (1) about the undeformed pose without
    # geometric stiffness, (2) about the static equilibrium under gravity (elastodyn's
    # deflected default) against Exudyn's static solve; elastodyn at n = 1 and n = 4
    X0 = pts[0]
    ed = {}
    for n in (1, 4):
        for variant, opts in (("no preload", dict(reference="undeformed", preload=False)),
                              ("undeformed + preload", dict(reference="undeformed")),
                              ("deflected", dict())):
            k = build_model(spec, "ked", elements=n, **opts).ked
            ed[n, variant] = k.modes(X0, count=count).frequencies_hz
    geo = delta_geometry(build_model(spec, "ked", elements=1).ked, X0)
    ex = {}
    for m in sorted(set(exudyn_elements) | {16}):
        for static in (False, True):
            ex[m, static] = ExudynDelta(geo, m, static).build().frequencies(count)
    rows = []
    for label, ref, static in (("undeformed, no preload", "no preload", False),
                               ("static equilibrium (elastodyn: deflected)", "deflected", True)):
        for m in sorted(set(exudyn_elements) | {16}):
            d = ex[m, static] / ed[4, ref] - 1
            rows.append((label, f"Exudyn {m} el./link", " ".join(f"{f:.3f}" for f in ex[m, static]),
                         f"{np.abs(d[:3]).max():.1%}", f"{np.abs(d).max():.1%}"))
        for n in (1, 4):
            d = ed[n, ref] / ed[4, ref] - 1
            rows.append((label, f"elastodyn KED n = {n}", " ".join(f"{f:.3f}" for f in ed[n, ref]),
                         f"{np.abs(d[:3]).max():.1%}", f"{np.abs(d).max():.1%}"))
    rows.append(("undeformed + preload (Kuo)", "elastodyn KED n = 1",
                 " ".join(f"{f:.3f}" for f in ed[1, "undeformed + preload"]), "", ""))
    d = np.abs(ex[16, False] / ed[4, "no preload"] - 1).max()
    if d > PHYSICS_TOL:
        print(f"\nWARNING: without preload the engines' frequencies differ by {d:.1%}")
    table(f"Kuo Delta at X = {np.round(X0, 3).tolist()} m: lowest {count} frequencies [Hz]; "
          "deviation from elastodyn KED n = 4 of the same reference",
          ["reference", "engine", "frequencies [Hz]", "max dev., modes 1-3", "max dev., all"],
          rows)

    if dynamics:
        # Exudyn's eigenvalues about a preloaded state against Exudyn's own dynamics
        peaks = ExudynDelta(geo, 8, True).twist_vibration()
        print("\nExudyn, free twist vibration about the static equilibrium (8 el./link; "
              "platform angular velocity about Z, FFT peaks): "
              + ", ".join(f"{f:.3f} Hz ({a:.2f})" for f, a in peaks[:6]))
        print("  eigenvalues of the same model: "
              + " ".join(f"{f:.3f}" for f in ex[8, True]))

    # time per pose
    out = []
    for variant, opts, static in (("undeformed, preload (Kuo)", dict(reference="undeformed"),
                                   False),
                                  ("undeformed, no preload",
                                   dict(reference="undeformed", preload=False), False),
                                  ("deflected (default)", dict(), True)):
        model = build_model(spec, "ked", elements=1, **opts)
        k = model.ked
        k.modes(pts[0], count=count)                                      # warm-up
        t_single, _ = median_time(lambda: [k.modes(X, count=count) for X in pts], 3)
        map_states = [model.state(pose=X) for X in circle_poses(Circle.kuo2016(), map_points)]
        t_map, _ = median_time(lambda: frequency_map(model, map_states, count=count), 1)
        per_ed = min(t_single / len(pts), t_map / map_points)
        for m in exudyn_elements:
            def exudyn_all():
                for X in pts:
                    ExudynDelta(delta_geometry(k, X), m, static).build().frequencies(count)
            t_ex, _ = median_time(exudyn_all, 1)
            out.append((variant, m, t_single / len(pts), t_map / map_points, t_ex / len(pts),
                        per_ed))
    table(f"Kuo Delta, natural frequencies at rest per pose (elastodyn KED n = 1, {k.dof} dof; "
          f"Exudyn per pose: build (+ static solve for the deflected reference) + eigenvalues; "
          f"{poses} poses on Kuo's circle; elastodyn's map: {map_points} poses)",
          ["reference", "Exudyn elements per link", "elastodyn modes() per pose",
           "elastodyn frequency_map per pose", "Exudyn per pose", "ratio (elastodyn's best)"],
          [(v, m, f"{a * 1e3:.2f} ms", f"{b * 1e3:.2f} ms", f"{c * 1e3:.1f} ms", _ratio(d, c))
           for v, m, a, b, c, d in out])
    return ed, ex, out


# --------------------------------------------------------------------------------------
# delta-run: Kuo's pick-and-place, motion-driven, geometrically exact beams (issue 31)
# --------------------------------------------------------------------------------------
RUN_DURATION, RUN_OUT = 1.2, 5e-3   # simulated time, output step [s] (exact_speed.py's)
RUN_PHYSICS_TOL = 0.10              # finest runs' peaks or histories apart: a warning

_Ops = collections.namedtuple("_Ops", "sqrt acos atan clip")
"""The functions a drive formula uses (numpy/math or Exudyn symbolic): sqrt, acos, atan
and clip(x) to [0, 1]."""


def _septic(ops, t, t0, tf):
    """RestToRest's order-7 law s = 35 u^4 - 84 u^5 + 70 u^6 - 20 u^7 at t [s], u = (t -
    t0) / (tf - t0) clipped to [0, 1] (rest before t0 and after tf)."""
    u = ops.clip((t - t0) / (tf - t0))
    return u * u * u * u * (35.0 + u * (-84.0 + u * (70.0 - 20.0 * u)))


def inverted_u_angles(tr, kin, check_step=5e-4):
    """The rotations of the upper links from the start, q_a,i(t) - q_a,i(0) [rad], of the
    rigid Delta (``kin``, elastodyn's DeltaKinematics) along the InvertedU ``tr``, as 3
    functions f(ops, t) in closed form for :class:`ExudynDelta`'s drive: the trajectory's
    septic laws (:class:`~elastodyn.trajectories.InvertedU`), then the inverse kinematics
    of :mod:`elastodyn.kinematics.delta` (a cos q + b sin q = k, q = psi + sigma acos(k /
    R), psi = atan2(b, a) written 2 atan(b / (R + a)): exact but where b = 0 and a < 0,
    the platform centre at the height of the motor axis, far off this path), the branch
    sigma of each leg elastodyn's elbows-out at the start. Checked here against the
    trajectory's own evaluation and elastodyn's inverse kinematics every ``check_step``
    [s] over the run (to 1e-12 rad): Exudyn's drive is the exact rigid motion, where
    elastodyn's run follows a cubic spline through the angles at its output times."""
    g = kin.geometry
    (x0, y0, z0), (dx, dy, dz) = tr.start, tr.travel
    t0, t1, t2, t3, tf = (float(v) for v in tr.times)
    e, r, s = np.asarray(g.radial, dtype=float), float(g.offset), float(g.sign)
    L1, L2 = float(g.upper_length), float(g.lower_length)

    def angle(ops, t, i, sigma):
        xy = _septic(ops, t, t1, t3)
        X = (x0 + dx * xy, y0 + dy * xy,
             z0 + dz * (_septic(ops, t, t0, t2) - _septic(ops, t, t2, tf)))
        P = [X[0] - r * e[i, 0], X[1] - r * e[i, 1], X[2]]
        a = P[0] * e[i, 0] + P[1] * e[i, 1]
        b = -s * P[2]
        k = (P[0] * P[0] + P[1] * P[1] + P[2] * P[2] + (L1 * L1 - L2 * L2)) / (2.0 * L1)
        R = ops.sqrt(a * a + b * b)
        return 2.0 * ops.atan(b / (R + a)) + sigma * ops.acos(k / R)

    num = _Ops(np.sqrt, np.arccos, np.arctan, lambda x: np.clip(x, 0.0, 1.0))
    q0 = np.asarray(kin.inverse_kinematics(np.asarray(tr.start, dtype=float)))
    sigma = [min((1.0, -1.0), key=lambda sg: abs(angle(num, 0.0, i, sg) - q0[i]))
             for i in range(3)]
    base = [float(angle(num, 0.0, i, sigma[i])) for i in range(3)]
    tt = np.arange(0.0, RUN_DURATION + check_step / 2, check_step)
    X = tr.evaluate(tt).position
    q = np.asarray(kin.inverse_kinematics(X))
    for i in range(3):
        mine = angle(num, tt, i, sigma[i]) - base[i]
        assert np.abs(mine - (q[:, i] - q0[i])).max() < 1e-12, "drive != inverse kinematics"

    def leg(i):
        return lambda ops, t: angle(ops, t, i, sigma[i]) - base[i]
    return [leg(i) for i in range(3)]


def drive_check(ked, X0, dq=1e-3):
    """Which way Exudyn's drive turns a link (the physics check before the run): the
    Delta of :class:`ExudynDelta` without gravity (no load: a rigid motion), leg 1 turned
    by ``dq`` [rad] through the clamp's offset (Python user function), the static
    platform displacement against elastodyn's rigid forward kinematics at q_a(0) + dq
    e_1. Returns (Exudyn's displacement (3,), the rigid one (3,)) [m]."""
    geo = dict(delta_geometry(ked, X0), gravity=[0.0, 0.0, 0.0])
    drive = [lambda ops, t: dq, lambda ops, t: 0.0, lambda ops, t: 0.0]
    ex = ExudynDelta(geo, 2, drive=drive, symbolic=False)
    ex.static_atol = 1e-6
    ex.build()
    P = np.asarray(ex.mbs.GetNodeOutput(ex.platform_node, ex._exu.OutputVariableType.Position))
    kin = ked.kinematics
    q0 = np.asarray(kin.inverse_kinematics(np.asarray(X0, dtype=float)))
    return P - X0, np.asarray(kin.forward_kinematics(q0 + [dq, 0.0, 0.0])) - X0


def history_distance(a, b):
    """Largest distance [m] between two deviation histories (nt, 3) on one time grid."""
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b), axis=1).max())


def elastodyn_delta_run(desc, tr, elements=4, step=None):
    """elastodyn's exact formulation on Kuo's pick-and-place, as benchmarks/exact_speed.py
    and the command line run it (``simulate_motion``: static deflection under gravity,
    generalized-alpha rho_inf 0.9 at its default step, or ``step`` [s], the efforts along;
    output step 5 ms). Returns dict: t (nt,) [s], dev (nt, 3) platform deviation from the
    rigid path [m], build and run wall times [s] (the run includes its static deflection;
    ``static`` that deflection alone, timed apart), the integrator step [s] and Newton
    iterations."""
    from elastodyn.formulations.registry import build_model
    from elastodyn.timegrid import uniform_times
    t0 = time.perf_counter()
    model = build_model(desc, "exact", elements=elements)
    t_build = time.perf_counter() - t0
    st = model.state(actuated=model.inverse_kinematics(tr.evaluate(np.array([0.0])).position[0]))
    t0 = time.perf_counter()
    model.static_deflection(st)
    t_static = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the run alone, like Exudyn's (the command line's adds its step error
        # estimate: a run at twice the step)
        times = uniform_times(tr.t_start, RUN_DURATION, RUN_OUT)
        r = model.simulate_motion(tr, times, integrator_step=step, step_error=False)
    t_run = time.perf_counter() - t0
    dev = np.asarray(r.ee_position) - np.asarray(r.rigid_ee_position)
    return dict(t=np.asarray(r.time), dev=dev, build=t_build, static=t_static,
                run=t_run, step=float(r.summary["integrator_step_s"]),
                newton=int(r.summary["newton_iterations"]), dof=model.n)


def exudyn_delta_run(geo, drive, tr, elements, step, rho_inf=0.9, symbolic=True,
                     newton_rtol=1e-6):
    """Exudyn's driven Delta (:class:`ExudynDelta`) at ``elements`` per link, step
    ``step`` [s]. Returns dict: t, dev (platform centre minus the trajectory's point: the
    rigid path), build (model + static solve) and solve (SolveDynamic) wall times [s],
    the solver's counts."""
    t0 = time.perf_counter()
    ex = ExudynDelta(geo, elements, drive=drive, symbolic=symbolic).build()
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    t, P = ex.run(RUN_DURATION, step, rho_inf, RUN_OUT, newton_rtol)
    t_solve = time.perf_counter() - t0
    return dict(t=t, dev=P - tr.evaluate(t).position, build=t_build, solve=t_solve,
                stats=ex.stats, coordinates=len(ex.mbs.systemData.GetODE2Coordinates()))


def bench_delta_run(exudyn_elements=(1, 2, 4, 8, 16), exudyn_steps=(5e-3, 2.5e-3, 1.25e-3, 6.25e-4),
                    our_elements=(4, 8), rho_inf=0.9, repeats=3, save=None, log=print):
    """The delta-run section (module docstring): elastodyn's exact runs at
    ``our_elements`` per link (the first: the reference), each at its default step and
    half of it; Exudyn's ladder ``exudyn_elements`` x ``exudyn_steps`` [s] (generalized-
    alpha ``rho_inf``); the tables, the physics checks, the equal-accuracy picks and their
    time ratios printed (picks' Exudyn times: median of ``repeats``); ``save``: an .npz
    of every deviation history [m]. Returns (elastodyn runs, Exudyn runs, picks)."""
    exu = peer("exudyn")
    if exu is None:
        return None
    warnings.simplefilter("ignore")
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    from elastodyn.trajectories import InvertedU

    desc = load_description("delta-kuo2016", [])
    tr = InvertedU()
    ked = build_model(desc, "ked", elements=1).ked
    X0 = tr.evaluate(np.array([0.0])).position[0]
    geo = delta_geometry(ked, X0)
    drive = inverted_u_angles(tr, ked.kinematics)

    # physics check 1: the sense of Exudyn's drive (a small turn of leg 1, no gravity)
    got, rigid = drive_check(ked, X0)
    off = np.linalg.norm(got - rigid) / np.linalg.norm(rigid)
    print(f"\nDrive check (no gravity, leg 1 turned by 1 mrad through the clamp's offset): "
          f"Exudyn's platform moves {np.round(got * 1e6, 2).tolist()} um, elastodyn's rigid "
          f"kinematics {np.round(rigid * 1e6, 2).tolist()} um (|difference| {off:.1e} of it)")
    if off > 1e-3:
        print("WARNING: Exudyn's drive does not turn the link as elastodyn's shaft angle")

    # elastodyn: the reference (first of our_elements, its default step), each mesh at
    # its default step and at half of it (its own step error, Richardson)
    ours = {}
    for n in our_elements:
        r = elastodyn_delta_run(desc, tr, n)
        log(f"  elastodyn n={n}: step {r['step']:.3g} s, run {r['run']:.1f} s")
        half = elastodyn_delta_run(desc, tr, n, step=r["step"] / 2)
        log(f"  elastodyn n={n}: step {half['step']:.3g} s, run {half['run']:.1f} s")
        ours[n] = (r, half)
    ref_n = our_elements[0]
    ed, ed_half = ours[ref_n]
    peak = float(np.linalg.norm(ed["dev"], axis=1).max())

    # Exudyn's ladder: every mesh at every step; the finest run (most elements, smallest
    # step) is the common yardstick of both engines' errors
    theirs = {}
    for m in exudyn_elements:
        for h in exudyn_steps:
            x = exudyn_delta_run(geo, drive, tr, m, h, rho_inf)
            if not np.allclose(x["t"], ed["t"], rtol=0, atol=1e-9):
                raise RuntimeError("Exudyn's sensor times are not elastodyn's output times")
            theirs[m, h] = x
            log(f"  Exudyn m={m}: step {h:.3g} s, solve {x['solve']:.2f} s, "
                f"{x['stats']['steps']} steps")
    fine = theirs[max(exudyn_elements), min(exudyn_steps)]["dev"]

    def err(dev):
        return history_distance(dev, fine) / peak

    def richardson(dev, dev_half):
        return 4.0 / 3.0 * history_distance(dev, dev_half) / peak   # generalized-alpha: 2nd order

    rows = []
    for n in our_elements:
        for r, half in ((ours[n][0], ours[n][1]), (ours[n][1], None)):
            rows.append(("elastodyn exact", n, f"{r['step'] * 1e3:.3g} ms",
                         f"{r['newton']} Newton",
                         f"{richardson(r['dev'], half['dev']):.2%}" if half else "",
                         f"{err(r['dev']):.2%}",
                         f"{history_distance(r['dev'], ed['dev']) / peak:.2%}",
                         f"{np.linalg.norm(r['dev'], axis=1).max() * 1e3:.1f}",
                         f"{r['build']:.2f} s", f"{r['run']:.2f} s",
                         f"{r['build'] + r['run']:.2f} s"))
    for m in exudyn_elements:
        for k, h in enumerate(exudyn_steps):
            x = theirs[m, h]
            nxt = theirs.get((m, exudyn_steps[k + 1])) if k + 1 < len(exudyn_steps) else None
            fin = ((m, h) == (max(exudyn_elements), min(exudyn_steps)))
            rows.append(("Exudyn", m, f"{h * 1e3:.3g} ms",
                         f"{x['stats']['steps']} steps, {x['stats']['newton']} Newton",
                         f"{richardson(x['dev'], nxt['dev']):.2%}" if nxt is not None and
                         np.isclose(exudyn_steps[k + 1], h / 2) else "",
                         "(yardstick)" if fin else f"{err(x['dev']):.2%}",
                         f"{history_distance(x['dev'], ed['dev']) / peak:.2%}",
                         f"{np.linalg.norm(x['dev'], axis=1).max() * 1e3:.1f}",
                         f"{x['build']:.3f} s", f"{x['solve']:.2f} s",
                         f"{x['build'] + x['solve']:.2f} s"))
    table(f"Kuo's pick-and-place, {RUN_DURATION} s from the static deflection, output step "
          f"{RUN_OUT * 1e3:g} ms; platform deviation from the rigid path; errors as the "
          f"largest distance between deviation histories over the run, relative to the peak "
          f"deviation of elastodyn's reference (n = {ref_n}, {peak * 1e3:.1f} mm); yardstick: "
          f"Exudyn's finest run ({max(exudyn_elements)} el./link, "
          f"{min(exudyn_steps) * 1e3:g} ms); both generalized-alpha rho_inf {rho_inf}; one run "
          f"each (build: elastodyn build_model; Exudyn model + static solve; solver: elastodyn "
          f"simulate_motion, static deflection and efforts included; Exudyn SolveDynamic)",
          ["engine", "elements/link", "step", "work", "error vs half step (Richardson)",
           "error vs yardstick", "distance from elastodyn's reference", "peak deviation [mm]",
           "build", "solver", "whole"], rows)

    # physics check 2: the finest runs of both engines
    ed_fine = ours[our_elements[-1]][1]["dev"]
    pe, px = (float(np.linalg.norm(d, axis=1).max()) for d in (ed_fine, fine))
    gap = history_distance(ed_fine, fine) / max(pe, px)
    print(f"\nPhysics check: finest runs, elastodyn n = {our_elements[-1]} at "
          f"{ours[our_elements[-1]][1]['step'] * 1e3:g} ms, Exudyn {max(exudyn_elements)} "
          f"el./link at {min(exudyn_steps) * 1e3:g} ms: peak deviation {pe * 1e3:.1f} / "
          f"{px * 1e3:.1f} mm ({abs(pe - px) / max(pe, px):.1%} apart); their histories "
          f"at most {gap:.1%} of the peak apart")
    if max(abs(pe - px) / max(pe, px), gap) > RUN_PHYSICS_TOL:
        print(f"WARNING: the engines disagree by more than {RUN_PHYSICS_TOL:.0%}: the times "
              "below compare different mechanisms")

    # equal accuracy: Exudyn's cheapest (mesh, step) of the ladder (a) whose error against
    # the yardstick is at most elastodyn's reference's; (b) whose history is within
    # elastodyn's own step error (Richardson) of elastodyn's reference; (c) within
    # elastodyn's error against the yardstick of it
    e_ed, e_step = err(ed["dev"]), richardson(ed["dev"], ed_half["dev"])

    def near(x):
        return history_distance(x["dev"], ed["dev"]) / peak
    picks = {}
    for label, ok in ((f"(a) error vs yardstick <= elastodyn's ({e_ed:.2%})",
                       lambda x: err(x["dev"]) <= e_ed),
                      (f"(b) within elastodyn's step error ({e_step:.2%}) of its reference",
                       lambda x: near(x) <= e_step),
                      (f"(c) within elastodyn's error vs yardstick ({e_ed:.2%}) of its "
                       "reference", lambda x: near(x) <= e_ed)):
        cand = [(x["solve"], mh) for mh, x in theirs.items()
                if ok(x) and mh != (max(exudyn_elements), min(exudyn_steps))]
        picks[label] = min(cand)[1] if cand else None
    timed, out = {}, []
    for label, mh in picks.items():
        if mh is None:
            best = min(theirs, key=lambda k: near(theirs[k]))
            out.append((label, f"none of the ladder (closest: {best[0]} el./link, "
                               f"{best[1] * 1e3:g} ms, {near(theirs[best]):.2%})",
                        "", "", "", "", "", ""))
            continue
        m, h = mh
        if mh not in timed:
            # the pick's solver again, median of repeats (a shared 2-core machine is noisy)
            runs = [exudyn_delta_run(geo, drive, tr, m, h, rho_inf) for _ in range(repeats)]
            timed[mh] = (statistics.median([x["solve"] for x in runs]),
                         statistics.median([x["build"] + x["solve"] for x in runs]))
        t_solve, t_whole = timed[mh]
        out.append((label, f"{m} el./link, {h * 1e3:g} ms", f"{err(theirs[mh]['dev']):.2%}",
                    f"{near(theirs[mh]):.2%}", f"{ed['run']:.2f} s / {t_solve:.2f} s",
                    _ratio(ed["run"], t_solve),
                    f"{ed['build'] + ed['run']:.2f} s / {t_whole:.2f} s",
                    _ratio(ed["build"] + ed["run"], t_whole)))
    table(f"Equal accuracy: elastodyn exact n = {ref_n} at its default step "
          f"({ed['step'] * 1e3:g} ms) against Exudyn's cheapest run of the ladder that meets "
          f"the criterion; Exudyn's times median of {repeats}, elastodyn's one run",
          ["criterion", "Exudyn", "Exudyn error vs yardstick",
           "Exudyn distance from elastodyn's reference", "solver elastodyn / Exudyn",
           "solver ratio", "whole elastodyn / Exudyn", "whole ratio"], out)
    if picks and next(iter(picks.values())) is not None:
        # Python user functions are said to be slow in Exudyn: the first pick's drive
        # as a Python function once (the same formula; the results are the same)
        m, h = next(iter(picks.values()))
        py = exudyn_delta_run(geo, drive, tr, m, h, rho_inf, symbolic=False)
        same = history_distance(py["dev"], theirs[m, h]["dev"])
        print(f"\nExudyn {m} el./link, {h * 1e3:g} ms with the drive as a Python user "
              f"function: solver {py['solve']:.2f} s (symbolic: {timed[m, h][0]:.2f} s), "
              f"the same history to {same:.1e} m")
    print(f"\nelastodyn n = {ref_n}: the run (static deflection, {ed['static']:.2f} s of it "
          f"timed apart, the dynamics and the efforts; benchmarks/exact_speed.py's figure) "
          f"{ed['run']:.2f} s, {'under' if ed['run'] < 10 else 'over'} the issue's 10 s; "
          f"with the build {ed['build'] + ed['run']:.2f} s")
    if save:
        np.savez(save, t=ed["t"], **{f"elastodyn_n{n}_h{r['step']:g}": r["dev"]
                                     for n in our_elements for r in ours[n]},
                 **{f"exudyn_m{m}_h{h:g}": x["dev"] for (m, h), x in theirs.items()})
    return ours, theirs, picks


# --------------------------------------------------------------------------------------
# rnea: model evaluation per call
# --------------------------------------------------------------------------------------
def bound_call_time(f, ins, k=20000, repeats=5):
    """Seconds per bound zero-allocation call of elastodyn's compiled program f on ins."""
    outs = [np.empty(sh) for sh in f.out_shapes.values()]
    call = f.bind(ins, outs)

    def loop():
        for _ in range(k):
            call()
    return median_time(loop, repeats)[0] / k


def pinocchio_chain(pin, n, length=0.45, mass=1.0):
    """A rigid planar serial arm of n revolute joints about z (links of ``length`` [m] and
    ``mass`` [kg], slender-rod inertia), built in code (no URDF)."""
    model = pin.Model()
    parent = 0
    for k in range(n):
        place = pin.SE3(np.eye(3), np.array([length if k else 0.0, 0.0, 0.0]))
        parent = model.addJoint(parent, pin.JointModelRZ(), place, f"j{k}")
        rod = mass * length**2 / 12
        model.appendBodyToJoint(parent, pin.Inertia(mass, np.array([length / 2, 0, 0]),
                                                    np.diag([1e-6, rod, rod])), pin.SE3.Identity())
    return model


def pinocchio_times(pin, n, k=20000, repeats=5):
    """Seconds per call of pin.rnea and pin.aba (from Python) on the n-joint chain."""
    model = pinocchio_chain(pin, n)
    data = model.createData()
    rng = np.random.default_rng(0)
    q, v, a = (rng.normal(size=n) for _ in range(3))
    tau = pin.rnea(model, data, q, v, a)
    # check against an independent path: ABA inverts RNEA
    assert np.allclose(pin.aba(model, data, q, v, tau), a, atol=1e-8)

    def loop(fn, x):
        def run():
            for _ in range(k):
                fn(model, data, q, v, x)
        return run
    return (median_time(loop(pin.rnea, a), repeats)[0] / k,
            median_time(loop(pin.aba, tau), repeats)[0] / k)


def bench_rnea(log=print):
    pin = peer("pinocchio")
    if pin is None:
        return None
    warnings.simplefilter("ignore")
    os.environ.setdefault("ELASTODYN_CACHE", tempfile.mkdtemp(prefix="elastodyn-bench-"))
    from elastodyn.description.presets import get_preset
    from elastodyn.description.tree import prrrp_briot2013
    from elastodyn.formulations.nepvp.engine import NEPVPEngine
    from elastodyn.formulations.registry import build_model

    rng = np.random.default_rng(0)
    cases = []
    for n in (1, 2):
        m = NEPVPEngine(prrrp_briot2013(elements=n))
        e = rng.normal(scale=1e-5, size=m.ne)
        ins = [m.closure([0.05, 0.1], e), e, rng.normal(size=2), rng.normal(scale=1e-2, size=m.ne),
               rng.normal(size=2)]
        label = f"five-bar prrrp-briot2013, {n} element{'s' if n > 1 else ''} per beam"
        cases.append((label, m, ins))
    for n in (1, 2, 4):
        m = build_model(get_preset("arm-yu2019"), "nepvp", elements=n).model
        ins = [rng.normal(size=m.n_joints), rng.normal(scale=1e-4, size=m.ne),
               rng.normal(size=m.na), rng.normal(scale=1e-2, size=m.ne), rng.normal(size=m.na)]
        cases.append((f"arm-yu2019 by NE-PVP, {n} element{'s' if n > 1 else ''} per link", m, ins))
    rows = []
    for label, m, ins in cases:
        ins = [np.ascontiguousarray(v, dtype=float) for v in ins]
        f = m.compiled("inverse")
        ops = m.program("inverse").ops()
        t = bound_call_time(f, ins)
        dof = m.na + m.ne
        t_rnea, t_aba = pinocchio_times(pin, dof)
        rows.append((label, dof, f"{ops.additions + ops.multiplications}", f"{t * 1e6:.2f} us",
                     f"{t_rnea * 1e6:.2f} us", _ratio(t, t_rnea), f"{t_aba * 1e6:.2f} us",
                     _ratio(t, t_aba)))
    table("Model evaluation per call from Python (median of 5 x 20000 calls): elastodyn's "
          "compiled NE-PVP inverse model (tau and the elastic accelerations; bound call) "
          "against Pinocchio on a rigid planar chain of as many revolute joints as the "
          "model has dof (actuated + elastic)",
          ["model", "dof", "operations (+, *)", "elastodyn", "pin.rnea", "ratio to rnea",
           "pin.aba", "ratio to aba"], rows)
    return rows


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", choices=SECTIONS, action="append",
                   help="run only this section (repeatable)")
    p.add_argument("--elements", type=int, nargs="+", default=[1, 2, 4, 8],
                   help="fivebar: elements per beam")
    p.add_argument("--method", default="rk4",
                   help="fivebar: elastodyn's integrator (simulate_motion's method)")
    p.add_argument("--formulation", choices=("nepvp", "exact"), default="nepvp",
                   help="fivebar: elastodyn's formulation (exact: the geometrically exact "
                        "beams, generalized-alpha, like Exudyn's)")
    p.add_argument("--tol", type=float, default=1e-2,
                   help="fivebar: error bound, relative to the peak platform deviation")
    p.add_argument("--spectral-radius", type=float, default=0.9,
                   help="fivebar, delta-run: Exudyn's generalized-alpha rho_inf")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--delta-dynamics", action="store_true",
                   help="delta: also the free twist vibration of the Exudyn model about "
                        "its static state (checks its eigenvalues; ~1-3 min)")
    p.add_argument("--run-elements", type=int, nargs="+", default=[1, 2, 4, 8, 16],
                   help="delta-run: Exudyn's elements per link (the most: the yardstick)")
    p.add_argument("--run-steps", type=float, nargs="+",
                   default=[5e-3, 2.5e-3, 1.25e-3, 6.25e-4],
                   help="delta-run: Exudyn's steps [s], from the largest, halving (the "
                        "smallest: the yardstick)")
    p.add_argument("--run-ours", type=int, nargs="+", default=[4, 8],
                   help="delta-run: elastodyn's elements per link (the first: the "
                        "reference; each at its default step and half of it)")
    p.add_argument("--run-save", metavar="FILE.npz",
                   help="delta-run: save every run's deviation history")
    p.add_argument("--no-processes", action="store_true",
                   help="skip the whole-process timings")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        {"exudyn-fivebar": _exudyn_fivebar_worker}[a.worker[0]](*a.worker[1:])
        return
    import platform
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    for name, mod in (("exudyn", "exudyn"), ("pinocchio", "pinocchio")):
        try:
            m = importlib.import_module(mod)
            print(f"{name} {getattr(m, '__version__', '?')}")
        except ImportError:
            pass
    only = a.only or SECTIONS
    if "fivebar" in only:
        bench_fivebar(tuple(a.elements), a.method, a.tol, a.repeats, not a.no_processes,
                      a.spectral_radius, formulation=a.formulation)
    if "delta" in only:
        bench_delta(dynamics=a.delta_dynamics)
    if "delta-run" in only:
        bench_delta_run(tuple(a.run_elements), tuple(sorted(a.run_steps, reverse=True)),
                        tuple(a.run_ours), a.spectral_radius, a.repeats, a.run_save)
    if "rnea" in only:
        bench_rnea()


if __name__ == "__main__":
    main()
