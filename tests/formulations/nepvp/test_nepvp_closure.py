"""Loop closure with any number of passive joints, and names that are not identifiers.

(a) A planar 3-PRR-like robot (six passive joints: the closure Jacobian needs the
    pivoted solve of ``symbolic.linalg``) against independent references: the loop
    closure against circle-line intersections, the passive velocities against finite
    differences of the closure, the velocity terms against the Christoffel terms of M,
    the frequencies against an independent frame finite-element model
    (reference_3prr_frame) and, under a heavy platform, against the pinned-pinned beam
    formula; the compiled RK4 simulation against the Python DOP853 path.
(b) The branch-free pivoted solve on matrices whose naive pivots vanish or are tiny, and
    on random matrices: C, generated Python and Program.evaluate against numpy.
(c) Robot and joint names that start with a digit or hold other characters.
"""
from __future__ import annotations

import math
import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from elastodyn.description.materials import Section
from elastodyn.description.tree import (ALUMINIUM, FlexibleBeam, MDHJoint, RigidBody,
                                        TreeRobot, prrrp_briot2013)
from elastodyn.exceptions import ModelError
from elastodyn.formulations.nepvp.engine import NEPVPEngine
from elastodyn.symbolic import compile_program, print_program
from elastodyn.symbolic.core import Program, Recorder, is_identifier
from elastodyn.symbolic.linalg import PivotedLU

from reference_3prr_frame import frame_omegas

EPS = np.finfo(float).eps



# ------------------------------------------------------------------------------ 3-PRR
# Rails along x0 on the line y = 0; the platform hangs below them (gravity -y0), so the
# legs are in tension. Legs of 0.48, 0.50 and 0.52 m (non-symmetric, as Rosyid &
# El-Khasawneh 2020), aluminium 2 mm (in the plane) x 20 mm (across it); a rigid
# triangular platform of 0.5 kg and 2.5e-3 kg m^2 about its centroid.
LEGS = np.array([0.48, 0.50, 0.52])
VERTS = np.array([[-0.12, 0.06], [0.12, 0.06], [0.0, -0.08]])   # B_i, platform frame [m]
BRANCH = np.array([-1.0, -1.0, 1.0])    # carriage left (-1) or right (+1) of its B_i
P0, PHI0 = np.array([0.0, -0.40]), 0.0  # home pose of the platform origin [m], [rad]
MASS, INERTIA_G = 0.5, 2.5e-3
SEC = Section.rectangle(2e-3, 20e-3)    # width along the element y axis: in the plane
E, RHO = ALUMINIUM.E, ALUMINIUM.rho


def inverse_geometry(x, y, phi):
    """Independent geometry of the rigid robot for the platform pose (x, y, phi): the
    pins B_i = P + R(phi) b_i, the carriages A_i where the circle of radius L_i about
    B_i meets the rail y = 0 (the branch BRANCH), and the leg angles psi_i of A_i B_i
    from x0. Returns (A_x (3,), psi (3,), B (3, 2))."""
    c, s = math.cos(phi), math.sin(phi)
    B = np.array([x, y]) + VERTS @ np.array([[c, s], [-s, c]])
    ax = B[:, 0] + BRANCH * np.sqrt(LEGS ** 2 - B[:, 1] ** 2)
    psi = np.arctan2(B[:, 1], B[:, 0] - ax)
    return ax, psi, B


HOME_AX = inverse_geometry(*P0, PHI0)[0]


def tip_offset(i):
    """theta of the fixed joint from pin B_i to the platform origin: R(theta) b_i points
    along -x, so that d = |b_i| along x reaches the origin."""
    return math.pi - math.atan2(VERTS[i, 1], VERTS[i, 0])


def three_prr(name="3prr-like", elements=1, mass=MASS, inertia_g=INERTIA_G,
              gravity=(0.0, -9.81, 0.0)) -> TreeRobot:
    """Leg i: prismatic q_i along x0 (actuated; gamma = alpha = pi/2 turn z onto x0,
    offset r = the home carriage position, so q = 0 at home), revolute a_i about z0 at
    the carriage (theta offset -pi/2: a_i is the leg angle psi_i from x0) carrying the
    beam, revolute b_i at the beam tip (B_i) and a fixed frame p_i at the platform origin
    (terminal). Carriages 1 kg. Closure rows v_x, v_y, w_z."""
    c = VERTS.mean(axis=0)
    Iz = inertia_g + mass * float(c @ c)                 # about the origin (parallel axes)
    joints, bodies, terminals, home = [], {}, [], {}
    half = math.pi / 2
    for i in range(3):
        j = len(joints) + 1
        psi0 = inverse_geometry(*P0, PHI0)[1][i]
        joints += [MDHJoint(f"q{i + 1}", 0, "prismatic", True, gamma=half, alpha=half,
                            r=float(HOME_AX[i])),
                   MDHJoint(f"a{i + 1}", j, "revolute", alpha=-half, theta=-half),
                   MDHJoint(f"b{i + 1}", j + 1, "revolute", d=float(LEGS[i])),
                   MDHJoint(f"p{i + 1}", j + 2, "fixed", d=float(np.hypot(*VERTS[i])),
                            theta=tip_offset(i))]
        bodies[j] = RigidBody(1.0)
        bodies[j + 1] = FlexibleBeam(float(LEGS[i]), SEC, ALUMINIUM, elements)
        terminals.append(j + 3)
        home.update({f"q{i + 1}": 0.0, f"a{i + 1}": float(psi0),
                     f"b{i + 1}": float(PHI0 - psi0 - tip_offset(i))})
    # I_xx, I_yy of a thin plate (I_xx + I_yy = I_zz); the planar rows do not use them
    platform = RigidBody(mass, ms=(mass * c[0], mass * c[1], 0.0),
                         inertia=((Iz / 2, 0, 0), (0, Iz / 2, 0), (0, 0, Iz)))
    return TreeRobot(name, tuple(joints), bodies, tuple(terminals), platform,
                     gravity=gravity, closure_rows=(0, 1, 5), home=home)


POSES = [(0.0, -0.40, 0.0), (0.03, -0.38, 0.10), (-0.05, -0.42, -0.15),
         (0.06, -0.36, 0.2)]


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


@pytest.fixture(scope="module")
def prr1():
    return NEPVPEngine(three_prr("3prr-like"))


@pytest.fixture(scope="module")
def prr2():
    return NEPVPEngine(three_prr("3prr-like", elements=2))


def test_3prr_generates_with_pivoted_closure_solve(prr1):
    """Six passive joints: the closure Jacobian D (6 x 6) is solved by the pivoted
    elimination, whose flags and selects appear in the counts; D has structural zeros
    (leg 2 does not enter the rows of legs 1 - 3), so elimination in a fixed order met
    a zero pivot (an infinite coefficient in the generated code). Names: the robot's
    starts with a digit."""
    m = prr1
    assert (m.na, len(m.passive), m.ne) == (3, 6, 9)
    D = m.full.outputs["D"]
    assert D.shape == (6, 6) and D[2, 2] == 0 and D[0, 2] == 0
    for problem in ("model", "inverse", "direct", "kinematics"):
        prog = m.program(problem)
        ops = prog.ops()
        assert ops.comparisons > 0 and ops.selects > 0
        assert is_identifier(prog.name) and prog.name == f"nepvp_3prr_like_{problem}"
        assert not any(e.has(sp.zoo, sp.oo, sp.nan) for _, e in prog.assignments)
    assert m.program("closure").ops().selects == 0      # h and D need no solve
    assert 0 < m.generation_time_s < 30


@pytest.mark.parametrize("pose", POSES)
def test_closure_matches_circle_intersections(prr1, pose):
    """Actuated positions from the independent inverse geometry (circle of radius L_i
    about B_i on the rail); the model's closure (Newton on its symbolic residual, from
    the home pose by continuation) gives back the leg angles a_i = psi_i, the platform
    angle a_i + b_i + theta_i = phi and the platform origin (Newton stops at 1e-12 on
    the residual, then one more step: measured 2e-13 rad and 3e-14 m; asserted 1e-11)."""
    m = prr1
    ax, psi, B = inverse_geometry(*pose)
    q = m.closure(ax - HOME_AX)
    names = m.sym.names
    a = q[[names.index(f"a{i + 1}") for i in range(3)]]
    b = q[[names.index(f"b{i + 1}") for i in range(3)]]
    np.testing.assert_allclose(_wrap(a - psi), 0.0, atol=1e-11)
    phi = a + b + np.array([tip_offset(i) for i in range(3)])
    np.testing.assert_allclose(_wrap(phi - pose[2]), 0.0, atol=1e-11)
    xp = m.kinematics(q, np.zeros(m.ne), np.zeros(3), np.zeros(m.ne))[2]
    np.testing.assert_allclose(xp, [pose[0], pose[1], 0.0], atol=1e-11)


def test_passive_velocities_equal_finite_differences_of_the_closure(prr1):
    """q_p_dot = X (q_a_dot, e_dot), X = -D^-1 E from the generated pivoted solve (eq.
    33), against central differences of the numerical closure (Newton, numpy's solve)
    along each actuated and elastic coordinate, at a deformed state; the platform
    twist t_p against differences of the platform origin. Step h = 1e-6 (m, or the
    elastic coordinate's unit), closure solved to 1e-14: truncation ~h^2 (3e-9 of the
    largest entry at h = 1e-5, so 3e-11 here), rounding ~eps |q| / h ~ 1e-10; measured
    8e-11 and 1.3e-10 of the largest entry; asserted 1e-8."""
    m = prr1
    rng = np.random.default_rng(3)
    qa = inverse_geometry(0.02, -0.39, 0.05)[0] - HOME_AX
    e = rng.normal(scale=1e-3, size=m.ne)
    e[0::3] *= 1e-2                                       # small axial stretch
    q0 = m.closure(qa, e)
    h = 1e-6
    X = np.empty((len(m.passive), m.na + m.ne))
    V = np.empty((2, m.na + m.ne))
    for k in range(m.na + m.ne):
        d = np.zeros(m.na + m.ne)
        d[k] = h
        qp = m.closure(qa + d[:m.na], e + d[m.na:], guess=q0, tol=1e-14)
        qm = m.closure(qa - d[:m.na], e - d[m.na:], guess=q0, tol=1e-14)
        X[:, k] = (qp - qm)[m.passive] / (2 * h)
        z, z3 = np.zeros(m.ne), np.zeros(3)
        V[:, k] = (m.kinematics(qp, e + d[m.na:], z3, z)[2]
                   - m.kinematics(qm, e - d[m.na:], z3, z)[2])[:2] / (2 * h)
    for k in range(m.na + m.ne):
        u = np.zeros(m.na + m.ne)
        u[k] = 1.0
        qdp, tp, _ = m.kinematics(q0, e, u[:m.na], u[m.na:])
        np.testing.assert_allclose(qdp, X[:, k], atol=1e-8 * np.abs(X).max())
        np.testing.assert_allclose(tp[:2], V[:, k], atol=1e-8 * np.abs(V).max())


def test_velocity_terms_are_the_christoffel_terms_of_M(prr1):
    """The closed robot is a Lagrangian system in q = (q_a, e) (passive joints given by
    the closure): its velocity terms c(q, qd) - c(q, 0) must equal
    sum_ij (dM_ki/dq_j - dM_ij/dq_k / 2) qd_i qd_j. They involve the acceleration bias
    b1 = D^-1 (-d beta) of the pivoted solve (eq. 36); M involves X (eq. 33). dM/dq by
    central differences of the model (closure re-solved to 1e-14), step 1e-6: measured
    1.2e-10 of the largest term (9e-9 at 1e-5: truncation h^2); asserted 1e-8. A b1
    scaled by 0.999 gives 1.1e-3."""
    m = prr1
    rng = np.random.default_rng(7)
    qa = inverse_geometry(-0.02, -0.41, -0.08)[0] - HOME_AX
    e = rng.normal(scale=1e-3, size=m.ne)
    e[0::3] *= 1e-2
    n = m.na + m.ne
    qd = np.concatenate([rng.normal(size=m.na), rng.normal(scale=0.05, size=m.ne)])
    q0 = m.closure(qa, e)
    z3, ze = np.zeros(3), np.zeros(m.ne)

    def mass(x):
        q = m.closure(x[:m.na], x[m.na:], guess=q0, tol=1e-14)
        return m.dynamics(q, x[m.na:], z3, ze)[0]

    x0 = np.concatenate([qa, e])
    h = 1e-6
    dM = np.empty((n, n, n))                               # dM[:, :, k] = dM/dq_k
    for k in range(n):
        d = np.zeros(n)
        d[k] = h
        dM[:, :, k] = (mass(x0 + d) - mass(x0 - d)) / (2 * h)
    christoffel = (np.einsum("kij,i,j->k", dM, qd, qd)
                   - 0.5 * np.einsum("ijk,i,j->k", dM, qd, qd))
    cv = m.dynamics(q0, e, qd[:m.na], qd[m.na:])[1] - m.dynamics(q0, e, z3, ze)[1]
    np.testing.assert_allclose(cv, christoffel, atol=1e-8 * np.abs(christoffel).max())
    assert np.abs(cv).max() > 1e-3                        # not trivially zero


def _platform_of(pose, mass=MASS, inertia_g=INERTIA_G):
    """First moment (base axes) and inertia about the origin of the platform at pose."""
    c, s = math.cos(pose[2]), math.sin(pose[2])
    g = np.array([[c, -s], [s, c]]) @ VERTS.mean(axis=0)
    return mass * g, inertia_g + mass * float(g @ g)


@pytest.mark.parametrize("pose", POSES[:3])
def test_modes_equal_independent_frame_model(prr1, prr2, pose):
    """Actuators locked, undeformed pose, no preload: the NE-PVP model linearized is
    the frame model of reference_3prr_frame (pinned legs, rigid platform, same
    elements) in other coordinates (floating frames clamped at the joints): equal to
    the eigen-solvers' round-off, asserted 1e-9 relative (measured 2e-13 and 4e-12)."""
    ax, _, B = inverse_geometry(*pose)
    A = np.stack([ax, np.zeros(3)], axis=1)
    S, Ip = _platform_of(pose)
    for m, n in ((prr1, 1), (prr2, 2)):
        w, _ = m.modes(ax - HOME_AX)
        ref = frame_omegas(A, B, pose[:2], n, E * SEC.area, E * SEC.iz, RHO * SEC.area,
                           MASS, S, Ip)
        np.testing.assert_allclose(w, ref, rtol=1e-9)


def test_modes_converge_to_pinned_legs_under_a_heavy_platform():
    """With a platform of 1e6 kg and 1e6 kg m^2 the pins B_i stand still in the legs'
    modes (coupling ~ leg mass / platform mass = 6e-8): modes 4-6 (after three slow
    platform modes on the legs' axial stiffness, < 5 rad/s) tend to the first bending
    modes of pinned-pinned beams, omega_i = (pi / L_i)^2 sqrt(E I / (rho A)), as the
    legs are meshed finer. Cubic elements converge as h^4: errors 1.1e-1, 3.9e-3,
    8.1e-4 for n = 1, 2, 3 (the order from n = 2 to 3 is 3.9); asserted: decreasing,
    observed order 4 +- 0.5, 1e-3 at n = 3."""
    ref = np.sort((np.pi / LEGS) ** 2 * np.sqrt(E * SEC.iz / (RHO * SEC.area)))
    errs = []
    for n in (1, 2, 3):
        m = NEPVPEngine(three_prr("heavy", elements=n, mass=1e6, inertia_g=1e6))
        w, _ = m.modes([0.0, 0.0, 0.0])
        assert w[2] < 5.0 < 50.0 < w[3]
        errs.append(np.abs(w[3:6] / ref - 1).max())
    assert errs[0] > errs[1] > errs[2]
    order = math.log(errs[1] / errs[2]) / math.log(3 / 2)
    assert 3.5 < order < 4.5
    assert errs[2] < 1e-3


def test_motion_compiled_rk4_equals_python_dop853(prr1):
    """Bang-bang motion of the three carriages (0.05 s, switches at 0.025 and 0.05 s) from
    the static deflection under gravity, simulated to 0.08 s by the compiled driver
    (RK4 in C, with its own Newton closure; program and function names from
    "3prr-like") and by the Python path (DOP853, rtol 1e-10). The bang-bang jumps excite
    the stiffest mode (the platform on the legs' axial stiffness, omega_max = 6.3e3
    rad/s), so RK4 runs at 1e-5 s (omega h = 0.063): the differences then scale as h^4
    (measured ratio 16 from 2e-5 s) and stay below 1e-6 of each peak (the actuator
    forces; 7e-8 for the platform velocity); asserted 1e-5.
    The rigid outputs use the same closed joints on both paths (1e-12)."""
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    traj = BangBang(np.zeros(3), np.array([0.01, 0.015, -0.01]), t0=0.0, tf=0.05)
    kw = dict(end=0.08, step=1e-3)
    c = simulate_motion(prr1, traj, method="rk4", max_step=1e-5, **kw)
    p = simulate_motion(prr1, traj, method="dop853", rtol=1e-10, atol=1e-13, **kw)
    assert c.method == "rk4" and p.method == "dop853" and c.rows == ("x", "y")
    np.testing.assert_array_equal(c.time, p.time)
    for f in ("e", "ed", "tau", "ee_velocity", "ee_position", "q"):
        a, b = getattr(c, f), getattr(p, f)
        assert np.abs(a - b).max() <= 1e-5 * np.abs(b).max(), f
    for f in ("rigid_tau", "rigid_ee_velocity", "rigid_ee_position"):
        a, b = getattr(c, f), getattr(p, f)
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), f
    assert np.abs(c.ee_velocity - c.rigid_ee_velocity).max() > 1e-4   # elastic response
    assert np.abs(c.e[:, 1]).max() > 1e-5


# ------------------------------------------------------------------------------ the solve
def _solve_program(A, B, inputs, name="solve"):
    rec = Recorder()
    X = PivotedLU(rec, A).solve(B)
    return Program(name, inputs, rec.assignments, {"X": X}).pruned()


def _paths(prog, *args):
    """X from the compiled C, the generated Python and Program.evaluate."""
    f = compile_program(prog)
    assert f.backend == "c"
    ns: dict = {}
    exec(compile(print_program(prog, "python"), "<gen>", "exec"), ns)
    py = ns[prog.name]
    return (f(*args)["X"], np.asarray(py(*args)).reshape(prog.outputs["X"].shape),
            prog.evaluate(**dict(zip(prog.inputs, args)))["X"])


def _naive_solve(A, B):
    """Gauss elimination in the fixed order (the code before, numerically)."""
    A, B = np.array(A, dtype=float), np.array(B, dtype=float)
    n = len(A)
    with np.errstate(divide="raise", invalid="raise"):
        for k in range(n):
            for i in range(k + 1, n):
                f = A[i, k] / A[k, k]
                A[i] -= f * A[k]
                B[i] -= f * B[k]
        X = np.zeros_like(B)
        for k in reversed(range(n)):
            X[k] = (B[k] - A[k, k + 1:] @ X[k + 1:]) / A[k, k]
    return X


x_, y_ = sp.symbols("x y", real=True)
_A5 = sp.Matrix([[x_, 2, 1, 0, 1],
                 [1, y_, 0, 2, 0],
                 [0, 1, 3, x_, 1],
                 [2, 0, 1, 1, y_],
                 [1, 1, 0, 1, 2]])


def _a5(x, y):
    return np.array(_A5.subs({x_: x, y_: y}).tolist(), dtype=float)


def test_pivoted_solve_where_the_naive_pivots_vanish_or_are_tiny():
    """A(x, y) (5 x 5) with a_00 = x and a_11 = y: the naive first pivot is exactly 0 at
    x = 0 and the second one at (x, y) = (1, 2) (y - 1 * 2 / 1), where elimination in a
    fixed order divides by zero; at x = 1e-14 its multipliers reach 1e14 and it loses
    most digits (1e12 times the bound below). The generated pivoted solve gives numpy's
    solution to round-off on the three paths at every point: within n cond(A) eps |X|,
    the forward error bound of LU with partial pivoting (growth factor about 1);
    measured at most 0.04 of it."""
    xs = [sp.Symbol(f"b{i}", real=True) for i in range(10)]
    B = sp.Matrix(5, 2, xs)
    prog = _solve_program(_A5, B, {"p": [x_, y_], "b": xs})
    assert prog.ops().comparisons > 0 and prog.ops().selects > 0
    rng = np.random.default_rng(11)
    b = rng.normal(size=(5, 2))
    for x, y in ((0.0, 1.0), (1.0, 2.0), (1e-14, 0.5), (0.7, -1.3), (-2.0, 0.0)):
        A = _a5(x, y)
        ref = np.linalg.solve(A, b)
        tol = 5 * np.linalg.cond(A) * EPS * np.abs(ref).max()
        for out in _paths(prog, [x, y], b.ravel()):
            assert np.abs(out - ref).max() <= tol, (x, y)
        if (x, y) in ((0.0, 1.0), (1.0, 2.0)):
            with pytest.raises(FloatingPointError):
                _naive_solve(A, b)
        if x == 1e-14:
            assert np.abs(_naive_solve(A, b) - ref).max() > 1e3 * tol


def test_pivoted_solve_random_matrices_on_all_paths():
    """A general 6 x 6 symbolic matrix (every entry an input) and two right-hand sides:
    random matrices with rows scaled by up to 1e+-3 (so that pivoting matters), one
    with a zero first entry and one with a zero leading 2 x 2 block (cond up to 4e4).
    C, Python (and Program.evaluate on three of them) agree with numpy.linalg.solve
    within n cond(A) eps |X| (the LU error bound; measured at most 3e-4 of it)."""
    n = 6
    a = [[sp.Symbol(f"a{i}{j}", real=True) for j in range(n)] for i in range(n)]
    bs = [sp.Symbol(f"b{i}{j}", real=True) for i in range(n) for j in range(2)]
    prog = _solve_program(sp.Matrix(a), sp.Matrix(n, 2, bs),
                          {"A": [s for row in a for s in row], "B": bs})
    f = compile_program(prog)
    ns: dict = {}
    exec(compile(print_program(prog, "python"), "<gen>", "exec"), ns)
    rng = np.random.default_rng(5)
    mats = [rng.normal(size=(n, n)) * 10.0 ** rng.uniform(-3, 3, size=(n, 1))
            for _ in range(20)]
    mats[0][0, 0] = 0.0
    mats[1][:2, :2] = 0.0
    for k, A in enumerate(mats):
        B = rng.normal(size=(n, 2))
        ref = np.linalg.solve(A, B)
        tol = n * np.linalg.cond(A) * EPS * np.abs(ref).max()
        outs = [f(A.ravel(), B.ravel())["X"],
                np.asarray(ns["solve"](A.ravel(), B.ravel())).reshape(n, 2)]
        if k < 3:
            outs.append(prog.evaluate(A=A.ravel(), B=B.ravel())["X"])
        for out in outs:
            assert np.abs(out - ref).max() <= tol, k


def test_pivoted_solve_prints_in_every_language():
    """Selects and flags print as C ternaries, Python conditional expressions, Octave
    masked expressions and LaTeX cases; the headers give their counts."""
    B = sp.Matrix([sp.Symbol("c0", real=True), 1, 0, 2, 0])
    prog = _solve_program(_A5, B, {"p": [x_, y_], "c": [B[0]]})
    ops = prog.ops()
    text = {lang: print_program(prog, lang) for lang in ("c", "python", "octave", "latex")}
    for t in text.values():
        assert f"{ops.comparisons} comparisons, {ops.selects} selects" in t[:2000]
    assert " ? " in text["c"] and " : " in text["c"] and "fabs(" in text["c"]
    assert " if " in text["python"] and " else " in text["python"]
    assert ".*" in text["octave"] and "(~(" in text["octave"]
    assert r"\begin{cases}" in text["latex"]


def test_pivoted_solve_refuses_structurally_singular_and_non_square_matrices():
    """A column of exact zeros is singular at every input: refused at generation
    (ModelError, a ValueError) rather than generating a division by zero; a non-square
    matrix is refused naming A and its shape."""
    A = sp.Matrix([[x_, 0, 1, 2], [1, 0, y_, 0], [2, 0, 1, 1], [0, 0, 3, x_]])
    with pytest.raises(ModelError, match="structurally singular"):
        PivotedLU(Recorder(), A)
    with pytest.raises(ValueError, match="A"):
        PivotedLU(Recorder(), sp.Matrix([[x_, 1, 2], [1, y_, 0]]))


@pytest.mark.skipif(shutil.which("octave") is None, reason="octave not installed")
def test_pivoted_solve_runs_in_octave(tmp_path):
    B = sp.Matrix([sp.Symbol("c0", real=True), 1, 0, 2, 0])
    prog = _solve_program(_A5, B, {"p": [x_, y_], "c": [B[0]]}, name="psolve")
    (tmp_path / "psolve.m").write_text(print_program(prog, "octave"))
    res = subprocess.run(["octave", "--no-gui", "--quiet", "--eval",
                          "format long; disp(psolve([0; 1], [0.5]))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    vals = np.array(res.stdout.split(), dtype=float)
    ref = np.linalg.solve(_a5(0.0, 1.0), [0.5, 1, 0, 2, 0])
    np.testing.assert_allclose(vals, ref, rtol=1e-12)


# ------------------------------------------------------------------------------ names
def _renamed_five_bar():
    """The five-bar preset with a name starting with a digit (and characters that would
    end a C comment or a line) and joint names that are not identifiers or collide with
    generated names (an intermediate variable t0, a C function, an elastic coordinate)."""
    base = prrrp_briot2013()
    ren = {"q1": "1.slider", "q2": "t0", "q3": "sin", "q4": "q-4", "q5": "e2_u1"}
    joints = tuple(replace(j, name=ren.get(j.name, j.name)) for j in base.joints)
    home = {ren[k]: v for k, v in base.home.items()}
    return replace(base, name="5bar */ v1.0\nrev", joints=joints, home=home)


def test_names_starting_with_a_digit_generate_compile_and_run():
    """Program, function and symbol names are identifiers (the robot's name prefixed,
    characters outside [A-Za-z0-9_] replaced; joint names likewise, made distinct from
    the generated names); the four printers, the compiled C, the generated Python, the
    evaluator and the compiled driver all run, and give the five-bar's numbers: the same
    robot under other names (round-off of a different term order, 1e-12)."""
    ren, ref = NEPVPEngine(_renamed_five_bar()), NEPVPEngine(prrrp_briot2013())
    prog = ren.program("inverse")
    assert prog.name == "nepvp_5bar____v1_0_rev_inverse" and is_identifier(prog.name)
    names = [str(s) for s in prog.inputs["q"]]
    assert names == ["q_1_slider", "q_t0", "q_sin", "q_4", "e2_u1_"]
    assert all(is_identifier(s) for s in names)
    assert ren.sym.names == ["1.slider", "t0", "sin", "q-4", "e2_u1"]
    assert len({str(s) for g in prog.inputs.values() for s in g}) == sum(
        len(g) for g in prog.inputs.values())
    for lang in ("c", "python", "octave", "latex"):
        text = print_program(prog, lang)
        assert prog.name in text and "\nrev" not in text
    assert "*/ v1" not in print_program(prog, "c")        # the header comment stays closed
    assert print_program(prog, "octave").startswith(f"function [tau, edd] = {prog.name}(")
    rng = np.random.default_rng(2)
    e = rng.normal(scale=1e-4, size=6)
    q = ref.closure([0.05, -0.1], e)
    args = (q, e, rng.normal(size=2), rng.normal(scale=1e-2, size=6), rng.normal(size=2))
    want = ref.inverse(*args)
    got_c = ren.inverse(*args)                             # compiled C
    ns: dict = {}
    exec(compile(print_program(prog, "python"), "<gen>", "exec"), ns)
    got_py = ns[prog.name](*args)
    got_ev = prog.evaluate(**dict(zip(prog.inputs, args)))
    for got in (got_c, [np.ravel(v) for v in got_py], [got_ev["tau"], got_ev["edd"]]):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.ravel(g), w, rtol=1e-12,
                                       atol=1e-12 * np.abs(w).max())
    np.testing.assert_allclose(ren.closure([0.05, -0.1], e), q, atol=1e-12)
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    traj = BangBang(np.zeros(2), np.array([0.01, 0.02]), t0=0.0, tf=0.05)
    a = simulate_motion(ren, traj, end=0.06, step=1e-3)
    b = simulate_motion(ref, traj, end=0.06, step=1e-3)
    assert a.method == b.method == "rk4"
    np.testing.assert_allclose(a.e, b.e, rtol=0, atol=1e-9 * np.abs(b.e).max())
