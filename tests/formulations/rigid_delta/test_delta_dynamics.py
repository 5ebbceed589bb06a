"""Tests of elastodyn.formulations.rigid_delta.engine and the Delta mass/friction description.

The explicit model (Asadi 2020) is checked against an independent sympy Euler-Lagrange
derivation (tests/references/reference_delta_lagrange.py), the multiplier model (Kuo 2016) against
the explicit one, both against the work-energy theorem (power balance along a smooth
trajectory, energy conservation of a free simulation) and against statics; the lumped
masses against Asadi eq. (22) and a uniform rod integrated by quadrature.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.description.delta import (
    DeltaGeometry,
    DeltaMasses,
    Friction,
    RigidDelta,
    delta_asadi2020,
    delta_kuo2016,
)
from elastodyn.exceptions import InputError
from elastodyn.formulations.rigid_delta.engine import (
    ExplicitDeltaEngine,
    MultiplierDeltaEngine,
    delta_model,
)
from elastodyn.kinematics.delta import DeltaKinematics, SingularityWarning
from elastodyn.trajectories import Circle, RestToRest

EPS = np.finfo(float).eps
MODELS = {"explicit": ExplicitDeltaEngine, "multipliers": MultiplierDeltaEngine}


def _load_reference():
    """Import tests/references/reference_delta_lagrange.py by file path (no dependence on how pytest
    sets sys.path), once per session."""
    name = "reference_delta_lagrange"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).resolve().parents[2] / "references" / "reference_delta_lagrange.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def reference():
    ref = _load_reference()
    ref._build()  # the symbolic derivation (~7 s), once for the module
    return ref


def robot_from_params(p: dict, convention: str) -> RigidDelta:
    """The reference's parameter dict as a RigidDelta in either convention."""
    theta = np.asarray(p["theta"], dtype=float)
    if convention == "kuo2016":
        geo = DeltaGeometry(p["r_A"], p["r_B"], p["L1"], p["L2"], tuple(theta), "kuo2016")
    else:
        geo = DeltaGeometry.from_asadi(p["r_A"], p["r_B"], p["L1"], p["L2"],
                                       phi=tuple(theta - math.pi / 2))
    masses = DeltaMasses(platform=p["m_P"], motor_inertia=p["I_mo"], upper_mass=p["m_L"],
                         upper_com_ratio=p["r_L"], upper_inertia=p["I_L"], elbow_mass=p["m_C"],
                         platform_joint_mass=p["m_A"], lower_com_mass=p["m_K"],
                         lower_com_ratio=p["r_K"])
    return RigidDelta(geo, masses, Friction(), tuple(p["g"]))


def random_params(rng) -> dict:
    """A random robot: non-symmetric leg angles, every mass non-zero, tilted gravity."""
    L1 = rng.uniform(0.2, 0.6)
    r_A = rng.uniform(0.05, 0.25)
    return {
        "L1": L1, "L2": L1 * rng.uniform(1.1, 2.0), "r_A": r_A, "r_B": r_A * rng.uniform(0.1, 1.0),
        "theta": np.array([0.0, 2 * math.pi / 3, 4 * math.pi / 3]) + rng.uniform(-0.2, 0.2, 3),
        "g": np.array([rng.uniform(-2, 2), rng.uniform(-2, 2), 9.81]),
        "m_P": rng.uniform(0.2, 2.0), "I_mo": rng.uniform(1e-4, 5e-2),
        "m_L": rng.uniform(0.05, 1.0), "r_L": rng.uniform(0.1, 0.9), "I_L": rng.uniform(1e-4, 2e-2),
        "m_C": rng.uniform(0.01, 0.3), "m_A": rng.uniform(0.01, 0.3), "m_K": rng.uniform(0.01, 0.3),
        "r_K": rng.uniform(0.1, 0.9),
    }


def working_points(k: DeltaKinematics, rng, n: int, max_condition: float = 50.0) -> np.ndarray:
    """Reachable, well-conditioned points of the elbow-out working mode: forward
    kinematics of random angles (elbows between 0.3 rad above and 1.2 rad below
    horizontal), kept where the IK "out" branch returns the same angles."""
    out = []
    for _ in range(200 * n):
        if len(out) == n:
            break
        q = k.geometry.sign * rng.uniform(-1.2, 0.3, 3)
        try:
            X = k.forward_kinematics(q)
        except InputError:
            continue
        if not np.allclose(k.inverse_kinematics(X), q, rtol=0, atol=1e-9):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SingularityWarning)
            if k.condition_number(X) > max_condition:
                continue
        out.append(X)
    assert len(out) == n, "too few working points: check the robot"
    return np.array(out)


def rel_err(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b)))


# ------------------------------------------------------------------ vs the reference


@pytest.mark.parametrize("convention", ["kuo2016", "asadi2020"])
def test_explicit_model_matches_independent_euler_lagrange(reference, convention):
    """M, C Xd, G (convention-independent: they act on X) and J (dq/dX, whose sign
    follows q: J_asadi = -J_kuo; the reference uses Kuo's sign) against the sympy
    derivation, for random robots, states and tilted gravity. Both sides evaluate O(100)
    flops of double-precision arithmetic at condition numbers < 50: round-off is
    ~1e-14 relative (measured 2e-15); 1e-10 leaves room and still catches any wrong
    term (every mass, r_L, r_K and the gravity tilt are random and non-zero)."""
    rng = np.random.default_rng(2020 if convention == "asadi2020" else 2016)
    for _ in range(6):
        p = random_params(rng)
        robot = robot_from_params(p, convention)
        model = ExplicitDeltaEngine(robot)
        X = working_points(model.kinematics, rng, 5)
        Xd = rng.normal(0.0, 1.0, size=X.shape)
        M, C, G, J = model.matrices(X, Xd)
        T, V = model.energy(X, Xd)
        for n in range(len(X)):
            Mr, hr, Gr, Jr = reference.reference_dynamics(p, X[n], Xd[n])
            assert rel_err(M[n], Mr) < 1e-10
            assert rel_err(C[n] @ Xd[n], hr) < 1e-10
            assert rel_err(G[n], Gr) < 1e-10
            assert rel_err(J[n], robot.geometry.sign * Jr) < 1e-10
            # the scalar fast path (used by rhs) against the same reference
            Mp, hp, Gp, Jp = model.point(X[n], Xd[n])
            assert rel_err(Mp, Mr) < 1e-10 and rel_err(hp, hr) < 1e-10
            assert rel_err(Gp, Gr) < 1e-10 and rel_err(Jp, robot.geometry.sign * Jr) < 1e-10
            # energies (used by the power and conservation tests below)
            Tr, Vr = reference.reference_energy(p, X[n], Xd[n])
            assert abs(T[n] - Tr) < 1e-10 * abs(Tr)
            assert abs(V[n] - Vr) < 1e-10 * (abs(Vr) + Tr)
            assert abs(T[n] - 0.5 * Xd[n] @ M[n] @ Xd[n]) < 1e-10 * Tr
        # M is symmetric positive definite
        np.testing.assert_allclose(M, np.swapaxes(M, 1, 2), rtol=0, atol=1e-12 * np.abs(M).max())
        assert np.all(np.linalg.eigvalsh(M) > 0)


# ------------------------------------------------------------------ the two formulations

FRICTION = Friction(viscous=0.05, coulomb=0.2, static=0.3, stribeck_velocity=0.1,
                    smoothing_velocity=0.01)


@pytest.mark.parametrize("preset", [delta_kuo2016, delta_asadi2020])
def test_multiplier_and_explicit_models_give_the_same_torques(preset):
    """Same robot (with friction and an external force): the torques of the two
    formulations agree to round-off (1e-10 of the torque scale; measured 4e-16), and
    each forward dynamics inverts its own inverse dynamics."""
    robot = dataclasses.replace(preset(), friction=FRICTION)
    rng = np.random.default_rng(7)
    explicit, multiplier = ExplicitDeltaEngine(robot), MultiplierDeltaEngine(robot)
    X = working_points(explicit.kinematics, rng, 40)
    Xd = rng.normal(0.0, 0.5, size=X.shape)
    Xdd = rng.normal(0.0, 5.0, size=X.shape)
    F = rng.normal(0.0, 2.0, size=X.shape)
    re_, rm = explicit.inverse_dynamics(X, Xd, Xdd, F), multiplier.inverse_dynamics(X, Xd, Xdd, F)
    assert rel_err(rm.torque, re_.torque) < 1e-10
    # friction: Friction.torque of the joint rates, included in the torque
    np.testing.assert_array_equal(re_.friction_torque, FRICTION.torque(re_.state.qd))
    np.testing.assert_array_equal(rm.friction_torque, re_.friction_torque)
    no_fric = ExplicitDeltaEngine(dataclasses.replace(robot, friction=Friction()))
    tau0 = no_fric.inverse_dynamics(X, Xd, Xdd, F).torque
    np.testing.assert_allclose(re_.torque - re_.friction_torque, tau0, rtol=0,
                               atol=1e-12 * np.abs(tau0).max())
    assert re_.multipliers is None and rm.multipliers.shape == (len(X), 3)
    # forward(inverse) = identity: Xdd is recovered to a few ulp times cond(M), M ~ 1-10 kg
    for model, res in ((explicit, re_), (multiplier, rm)):
        Xdd_back = model.forward_dynamics(X, Xd, res.torque, F)
        np.testing.assert_allclose(Xdd_back, Xdd, rtol=0, atol=1e-11 * np.abs(Xdd).max())
    # and the two forward dynamics agree for arbitrary torques
    tau = rng.normal(0.0, 2.0, size=X.shape)
    a_e, a_m = explicit.forward_dynamics(X, Xd, tau), multiplier.forward_dynamics(X, Xd, tau)
    assert rel_err(a_m, a_e) < 1e-10
    # single-sample API and rhs (python-control style, zero torque by default)
    x = np.concatenate([X[0], Xd[0]])
    np.testing.assert_allclose(explicit.rhs(0.0, x, tau[0]),
                               np.concatenate([Xd[0], a_e[0]]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(multiplier.rhs(0.0, x),
                               np.concatenate([Xd[0], multiplier.forward_dynamics(X[0], Xd[0], np.zeros(3))]),
                               rtol=1e-13, atol=1e-13)
    assert explicit.forward_dynamics(X[0], Xd[0], tau[0]).shape == (3,)
    # scalar fast paths (one configuration) agree with the vectorised code
    for n in range(5):
        for model, res in ((explicit, re_), (multiplier, rm)):
            np.testing.assert_allclose(model.torque_point(X[n], Xd[n], Xdd[n]),
                                       model.inverse_dynamics(X[n], Xd[n], Xdd[n]).torque[0],
                                       rtol=1e-12, atol=1e-12 * np.abs(res.torque).max())
        st0 = explicit.kinematics.state(X[n], Xd[n], Xdd[n])
        for a, b in zip(explicit.joint_point(X[n], Xd[n], Xdd[n]),
                        (st0.q[0], st0.qd[0], st0.qdd[0], st0.J[0], st0.Jd[0])):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max())
    assert isinstance(delta_model(robot, "multipliers"), MultiplierDeltaEngine)


# ------------------------------------------------------------------ work-energy theorem

POWER_CASES = {
    "kuo-circle": (delta_kuo2016, Circle((0.0, 0.0, 0.5), 0.1, period=0.5), (0.01, 0.49)),
    "asadi-rest-to-rest": (delta_asadi2020,
                           RestToRest((-0.1, 0.05, 0.4), (0.1, -0.05, 0.5), t0=0.0, tf=0.4, order=7),
                           (0.01, 0.39)),
}


@pytest.mark.parametrize("formulation", MODELS)
@pytest.mark.parametrize("case", POWER_CASES)
def test_power_balance_along_a_trajectory(case, formulation):
    """tau . qd = d/dt (T + V) + tau_fric . qd (no external force), with viscous,
    Coulomb and Stribeck friction on.

    d/dt (T + V) by 4th-order central differences of energy(X(t), Xd(t)) with step h:
    truncation c h^4, so |dE_2h - dE_h| = 15 |c| h^4 bounds it with a wide margin;
    round-off: the stencil weights sum to 18/12, times a few ulp of |E|, over h. The
    resulting tolerance is 6e-11 (circle) to 1.2e-9 (septic) of the power scale
    (asserted < 1e-8), far below any modelling error; measured errors are 1/15 of it,
    as the h^4 law predicts."""
    preset, traj, (t_lo, t_hi) = POWER_CASES[case]
    robot = dataclasses.replace(preset(), friction=FRICTION)
    model = MODELS[formulation](robot)
    t = np.linspace(t_lo, t_hi, 40)

    def energy(tt):
        s = traj.evaluate(tt)
        T, V = model.energy(s.position, s.velocity)
        return T + V

    def dE(h):
        return (-energy(t + 2 * h) + 8 * energy(t + h) - 8 * energy(t - h) + energy(t - 2 * h)) / (12 * h)

    h = 2.5e-4  # s; the 4h-wide stencils stay inside the smooth piece
    s = traj.evaluate(t)
    res = model.inverse_dynamics(s.position, s.velocity, s.acceleration)
    qd = res.state.qd
    power = np.sum(res.torque * qd, axis=1)
    friction_power = np.sum(res.friction_torque * qd, axis=1)
    scale = np.max(np.sum(np.abs(res.torque * qd), axis=1))
    assert np.max(np.abs(friction_power)) > 0.05 * scale  # friction is really on
    d_h, d_2h = dE(h), dE(2 * h)
    tol = np.abs(d_2h - d_h) + 1.5 * 10 * EPS * np.max(np.abs(energy(t))) / h
    assert np.max(tol) < 1e-8 * scale  # the check is sharp
    err = np.abs(power - friction_power - d_h)
    assert np.all(err <= tol), f"max power mismatch {err.max()} W (scale {scale} W)"


FREE_MOTION_RHS = {
    # ExplicitDeltaEngine.rhs is the scalar fast path (formulations._delta_point)
    "explicit-rhs": lambda m: m.rhs,
    "explicit-forward_dynamics": lambda m: (
        lambda t, x: np.concatenate([x[3:], m.forward_dynamics(x[:3], x[3:], np.zeros(3))])),
    "multipliers-rhs": lambda m: m.rhs,
}


@pytest.mark.parametrize("kind", FREE_MOTION_RHS)
def test_free_motion_conserves_energy(kind):
    """Zero torque, no friction, gravity on (tilted): T + V is a first integral of the
    equations of motion iff C and G are consistent with M and V.

    Robot: Kuo's geometry with heavy upper links and a large reflected motor inertia
    (without it the platform free-falls to the stretched-leg boundary within 0.3 s),
    launched upwards: it rises, stops and falls back, converting 96 % of its kinetic
    energy while staying well inside the workspace (cond(J) < 10). DOP853 at
    rtol 1e-10 / atol 1e-12 over ~15 steps: the global error is below
    steps x rtol ~ 1e-9 of the state, so the energy drift must stay below 1e-7 of the
    energy exchanged (measured 8e-11; 1 % too much C Xd drifts by 2e-3, 1e-4 too much
    G by 6e-5)."""
    masses = DeltaMasses(platform=0.5, motor_inertia=2.0, upper_mass=0.8, upper_com_ratio=0.4,
                         upper_inertia=0.02, elbow_mass=0.1, platform_joint_mass=0.12,
                         lower_com_mass=0.15, lower_com_ratio=0.4)
    robot = dataclasses.replace(delta_kuo2016(), masses=masses, gravity=(0.5, -0.3, 9.81))
    model = MODELS[kind.split("-")[0]](robot)
    x0 = np.array([0.05, -0.03, 0.55, 0.15, 0.1, -0.6])
    sol = solve_ivp(FREE_MOTION_RHS[kind](model), (0.0, 1.0), x0, method="DOP853",
                    rtol=1e-10, atol=1e-12, dense_output=True)
    assert sol.success
    Y = sol.sol(np.linspace(0.0, 1.0, 201)).T
    T, V = model.energy(Y[:, :3], Y[:, 3:])
    E = T + V
    exchanged = T.max() - T.min()
    assert exchanged > 0.9 * T.max()  # the motion nearly stops at its apex
    assert np.max(model.kinematics.condition_number(Y[:, :3])) < 10
    assert np.max(np.abs(E - E[0])) < 1e-7 * exchanged


# ------------------------------------------------------------------ statics


def test_lower_links_are_in_tension_at_rest():
    """Kuo's robot at rest under gravity: in the central working region (within 0.15 m
    of the axis, Z in [0.4, 0.8] m: Kuo's circle and pick-and-place paths) the platform
    hangs from its three lower links. Far to the side a link does push, so the sign
    is a real check: at (-0.3, 0, 0.9) m the leg-1 link is in compression, as the
    statics of the platform alone (two-force members, solved here) also says."""
    model = MultiplierDeltaEngine(delta_kuo2016())
    rng = np.random.default_rng(5)
    radius, angle = 0.15 * np.sqrt(rng.uniform(size=200)), rng.uniform(0, 2 * math.pi, 200)
    X = np.stack([radius * np.cos(angle), radius * np.sin(angle), rng.uniform(0.4, 0.8, 200)], 1)
    res = model.inverse_dynamics(X, np.zeros_like(X), np.zeros_like(X))
    assert np.all(res.lower_link_tension > 0)
    far = model.inverse_dynamics((-0.3, 0.0, 0.9), np.zeros(3), np.zeros(3))
    st = far.state
    directions = (st.B[0] - st.D[0]) / 0.6
    statics = np.linalg.solve(directions.T, -0.5 * np.asarray(delta_kuo2016().gravity))
    assert far.lower_link_tension[0, 0] < 0 and statics[0] < 0
    assert np.all(far.lower_link_tension[0, 1:] > 0) and np.all(statics[1:] > 0)
    np.testing.assert_allclose(res.lower_link_tension,
                               -2 * res.multipliers * delta_kuo2016().geometry.lower_length)


def test_platform_statics_with_massless_links():
    """Only m_P: each lower link is a two-force member, the force of leg i on the
    platform is t_i (B_i - D_i) / L2 (t_i > 0: tension), and sum_i of them = -m_P g.
    Solve that 3x3 system here and compare with the model's tensions; the platform
    equation's constraint force 2 lambda_i U_i is the same vector. The torques follow from
    the moment of the link force about the motor axis: tau_i = -T_i . f_i (f_i the force
    of the link on the elbow, t_i (D_i - B_i) / L2, and T_i = dB_i/dq_i)."""
    robot = dataclasses.replace(delta_kuo2016(), masses=DeltaMasses(platform=0.5),
                                gravity=(0.7, -0.4, 9.81))
    model = MultiplierDeltaEngine(robot)
    g = np.asarray(robot.gravity)
    L2 = robot.geometry.lower_length
    X = working_points(model.kinematics, np.random.default_rng(6), 10)
    res = model.inverse_dynamics(X, np.zeros_like(X), np.zeros_like(X))
    st = res.state
    for n in range(len(X)):
        directions = (st.B[n] - st.D[n]) / L2  # rows: unit vectors platform -> elbow
        tension = np.linalg.solve(directions.T, -0.5 * g)
        np.testing.assert_allclose(res.lower_link_tension[n], tension, rtol=1e-12)
        forces = res.lower_link_tension[n][:, None] * directions
        np.testing.assert_allclose(forces.sum(axis=0), -0.5 * g, rtol=0, atol=1e-12)
        np.testing.assert_allclose(2 * res.multipliers[n][:, None] * st.U[n], forces,
                                   rtol=0, atol=1e-12)
        on_elbow = -forces
        tau = -np.einsum("ij,ij->i", st.T[n], on_elbow)
        np.testing.assert_allclose(res.torque[n], tau, rtol=1e-12, atol=1e-12)
    # at the centre of the workspace the platform hangs: every link in tension
    centre = model.inverse_dynamics((0.0, 0.0, 0.5), np.zeros(3), np.zeros(3))
    assert np.all(centre.lower_link_tension > 0)


# ------------------------------------------------------------------ lumped masses


@pytest.mark.parametrize("mass, inertia, ratio, length", [
    (0.2, 0.002, 0.5, 0.6),
    (0.3, 0.004, 0.35, 0.5),
    (2 * 0.05788, 5.74769459e-3, 0.5, 0.52),  # Asadi's appendix
    (1.0, 0.01, 0.8, 0.4),
])
def test_equivalent_lower_link_preserves_mass_centre_and_inertia(mass, inertia, ratio, length):
    """Asadi eq. (22) by direct computation: masses at s = 0 (elbow C), s = l (platform
    joint A) and s = r l (centre of mass K) have the link's mass, centre of mass and
    moment of inertia about that centre."""
    m_c, m_a, m_k = DeltaMasses.equivalent_lower_link(mass, inertia, ratio, length)
    m = np.array([m_c, m_a, m_k])
    s = np.array([0.0, length, ratio * length])
    assert np.all(m >= 0)
    assert m.sum() == pytest.approx(mass, rel=1e-14)
    assert (m @ s) / m.sum() == pytest.approx(ratio * length, rel=1e-13)
    assert m @ (s - ratio * length) ** 2 == pytest.approx(inertia, rel=1e-13)


def test_equivalent_lower_link_uniform_rod_and_limits():
    M, L = 0.117, 0.6
    np.testing.assert_allclose(DeltaMasses.equivalent_lower_link(M, M * L**2 / 12, 0.5, L),
                               [M / 6, M / 6, 2 * M / 3], rtol=1e-14)
    # the largest inertia puts everything at the two ends (m_K -> 0); beyond, m_K < 0
    r = 0.3
    i_max = M * r * (1 - r) * L**2
    m_k = DeltaMasses.equivalent_lower_link(M, (1 - 1e-6) * i_max, r, L)[2]
    assert m_k == pytest.approx(1e-6 * M, rel=1e-6)  # m_K = M (1 - I / I_max)
    with pytest.raises(ValueError, match=r"^invalid inertia: .*at most"):
        DeltaMasses.equivalent_lower_link(M, 1.01 * i_max, r, L)
    for name, args in [("mass", (0.0, 0.01, 0.5, L)), ("inertia", (M, -0.01, 0.5, L)),
                       ("com_ratio", (M, 0.001, 1.0, L)), ("com_ratio", (M, 0.001, 0.0, L)),
                       ("length", (M, 0.001, 0.5, float("nan")))]:
        with pytest.raises(ValueError, match=rf"^invalid {name}: "):
            DeltaMasses.equivalent_lower_link(*args)


def test_equivalent_lower_link_accepts_the_limiting_inertia():
    M, L, r = 0.117, 0.6, 0.3
    m_c, m_a, m_k = DeltaMasses.equivalent_lower_link(M, M * r * (1 - r) * L**2, r, L)
    assert m_k == pytest.approx(0.0, abs=1e-12)
    assert m_c == pytest.approx((1 - r) * M) and m_a == pytest.approx(r * M)


def test_uniform_rods_are_exact_for_kinetic_and_potential_energy():
    """DeltaMasses.uniform_rods against uniform rods integrated along their length:
    T = sum_i int_0^1 1/2 m |v(s)|^2 ds with v linear between the link's end velocities
    (upper link: 0 at A_i, T_i qd_i at B_i; lower link: T_i qd_i at B_i, Xd at D_i),
    V = -g . sum_i int_0^1 m p(s) ds. Gauss-Legendre with 4 nodes is exact for these
    quadratic (cubic-free) integrands: agreement to round-off (1e-12 relative)."""
    m1, m2 = 0.7, 0.4
    robot = dataclasses.replace(delta_kuo2016(), gravity=(0.3, 0.2, 9.81),
                                masses=DeltaMasses.uniform_rods(0.0, m1, 0.5, m2))
    model = ExplicitDeltaEngine(robot)
    rng = np.random.default_rng(21)
    X = working_points(model.kinematics, rng, 20)
    Xd = rng.normal(0.0, 1.0, size=X.shape)
    T, V = model.energy(X, Xd)
    st = model.kinematics.state(X, Xd)
    nodes, weights = np.polynomial.legendre.leggauss(4)
    s, w = 0.5 * (nodes + 1.0), 0.5 * weights  # on [0, 1]
    g = np.asarray(robot.gravity)
    A = robot.geometry.base_radius * robot.geometry.radial
    vB = st.T * st.qd[..., None]  # (n, leg, 3), elbow velocity
    T_ref = np.zeros(len(X))
    V_ref = np.zeros(len(X))
    for sk, wk in zip(s, w):
        v_up = sk * vB
        v_low = (1 - sk) * vB + sk * Xd[:, None, :]
        T_ref += wk * 0.5 * (m1 * np.sum(v_up**2, axis=(1, 2)) + m2 * np.sum(v_low**2, axis=(1, 2)))
        p_up = A + sk * (st.B - A)
        p_low = (1 - sk) * st.B + sk * st.D
        V_ref -= wk * (m1 * p_up.sum(axis=1) + m2 * p_low.sum(axis=1)) @ g
    np.testing.assert_allclose(T, T_ref, rtol=1e-12)
    np.testing.assert_allclose(V, V_ref, rtol=1e-12)


# ------------------------------------------------------------------ presets


def test_kuo_preset_values():
    """Kuo 2016 Table 1, steel 5 mm x 5 mm links: m = rho A L."""
    r = delta_kuo2016()
    g, m = r.geometry, r.masses
    assert (g.base_radius, g.platform_radius, g.upper_length, g.lower_length) == (0.1, 0.05, 0.5, 0.6)
    np.testing.assert_allclose(g.leg_angles, np.deg2rad([0, 120, 240]), rtol=0, atol=1e-15)
    assert g.convention == "kuo2016"
    assert r.gravity == (0.0, 0.0, 9.81)
    m1, m2 = 7800 * 25e-6 * 0.5, 7800 * 25e-6 * 0.6
    assert m1 == pytest.approx(0.0975) and m2 == pytest.approx(0.117)
    assert m.platform == 0.5 and m.motor_inertia == 0.0
    assert m.upper_mass == pytest.approx(m1, rel=1e-12)
    assert m.upper_inertia == pytest.approx(m1 * 0.5**2 / 12, rel=1e-12)
    assert m.upper_com_ratio == 0.5 and m.lower_com_ratio == 0.5
    lower = m.elbow_mass + m.platform_joint_mass + m.lower_com_mass
    assert lower == pytest.approx(m2, rel=1e-12)
    assert m.elbow_mass == pytest.approx(m2 / 6) and m.lower_com_mass == pytest.approx(2 * m2 / 3)
    assert r.friction.is_zero
    assert r.material.rho == 7800 and r.link_section.area == pytest.approx(25e-6)


def test_asadi_preset_values():
    """Asadi & Heydari 2020, appendix."""
    r = delta_asadi2020()
    g, m = r.geometry, r.masses
    assert g.convention == "asadi2020"
    assert (g.base_radius, g.platform_radius, g.upper_length, g.lower_length) == (0.2, 0.2, 0.2, 0.52)
    np.testing.assert_allclose(np.angle(np.exp(1j * g.asadi_leg_angles)),
                               [math.pi, -math.pi / 3, math.pi / 3], rtol=0, atol=1e-15)
    assert m.platform == 1.055 and m.motor_inertia == 0.0465475
    assert m.upper_mass == 0.116 and m.upper_com_ratio == 0.3933
    assert m.upper_inertia == 6.4345319e-4 and m.lower_com_ratio == 0.5
    lower = np.array([m.elbow_mass, m.platform_joint_mass, m.lower_com_mass])
    assert lower.sum() == pytest.approx(2 * 0.05788, rel=1e-14)
    s = np.array([0.0, 0.52, 0.26])  # C, A, K along the link
    assert lower @ (s - 0.26) ** 2 == pytest.approx(5.74769459e-3, rel=1e-13)
    assert r.gravity == (0.0, 0.0, 9.81) and r.friction.is_zero


# ------------------------------------------------------------------ friction


def test_friction_torque_shape():
    f = Friction(viscous=0.05, coulomb=0.2, static=0.3, stribeck_velocity=0.1,
                 smoothing_velocity=1e-4)
    qd = np.random.default_rng(1).normal(0.0, 1.0, size=(50, 3))
    # odd in qd: tanh odd, the Stribeck exponential even
    np.testing.assert_allclose(f.torque(-qd), -f.torque(qd), rtol=0, atol=1e-15)
    assert f.torque(0.0) == 0.0
    # viscous slope where the Coulomb/Stribeck part is flat (|qd| >> 0.1 rad/s):
    # exp(-(5/0.1)^2) and 1 - tanh(5/1e-4) underflow to 0
    assert (f.torque(10.0) - f.torque(5.0)) / 5.0 == pytest.approx(0.05, rel=1e-12)
    assert f.torque(10.0) - 0.05 * 10.0 == pytest.approx(0.2, rel=1e-12)  # Coulomb level
    # Stribeck level at small speed: 1e-4 << qd = 2e-3 << 0.1 rad/s. Bound on the
    # deviation from `static`: (static - coulomb)(1 - exp(-x^2)) <= (static - coulomb) x^2,
    # x = qd / 0.1; static (1 - tanh(y)) <= 2 static exp(-2 y), y = qd / 1e-4; plus viscous qd.
    q = 2e-3
    bound = 0.1 * (q / 0.1) ** 2 + 2 * 0.3 * math.exp(-2 * q / 1e-4) + 0.05 * q
    assert abs(f.torque(q) - 0.3) <= bound < 1e-3
    # between the two levels, decreasing from static to coulomb as the speed grows
    mid = f.torque(np.array([0.01, 0.05, 0.1, 0.2, 0.5])) - 0.05 * np.array([0.01, 0.05, 0.1, 0.2, 0.5])
    assert np.all(np.diff(mid) < 0) and np.all((mid > 0.2) & (mid < 0.3))
    # static=None: no bump, the small-speed level is Coulomb
    g = Friction(coulomb=0.2, smoothing_velocity=1e-4)
    assert g.torque(q) == pytest.approx(0.2, rel=1e-8)
    # smoothing 0: exact sign, discontinuous at 0
    h = Friction(coulomb=0.2, smoothing_velocity=0.0)
    assert h.torque(1e-12) == 0.2 and h.torque(-1e-12) == -0.2 and h.torque(0.0) == 0.0
    assert Friction().is_zero and not f.is_zero and np.all(Friction().torque(qd) == 0.0)
    assert f.torque(qd).shape == qd.shape


@pytest.mark.parametrize("name, kwargs", [
    ("viscous", {"viscous": -0.1}),
    ("viscous", {"viscous": float("nan")}),
    ("coulomb", {"coulomb": -0.2}),
    ("static", {"coulomb": 0.2, "static": 0.1}),
    ("static", {"static": -1.0}),
    ("stribeck_velocity", {"stribeck_velocity": 0.0}),
    ("smoothing_velocity", {"smoothing_velocity": -1e-3}),
])
def test_friction_bad_parameters(name, kwargs):
    with pytest.raises(ValueError, match=rf"^invalid {re.escape(name)}: "):
        Friction(**kwargs)


@pytest.mark.parametrize("name, build", [
    ("platform", lambda: DeltaMasses(platform=-0.5)),
    ("upper_com_ratio", lambda: DeltaMasses(platform=0.5, upper_com_ratio=1.5)),
    ("lower_com_ratio", lambda: DeltaMasses(platform=0.5, lower_com_ratio=-0.1)),
    ("motor_inertia", lambda: DeltaMasses(platform=0.5, motor_inertia=float("inf"))),
    ("lower_mass", lambda: DeltaMasses.uniform_rods(0.5, 0.1, 0.5, -0.1)),
    ("geometry", lambda: RigidDelta("delta", DeltaMasses(0.5))),
    ("masses", lambda: RigidDelta(delta_kuo2016().geometry, 0.5)),
    ("friction", lambda: RigidDelta(delta_kuo2016().geometry, DeltaMasses(0.5), friction=0.1)),
    ("robot", lambda: ExplicitDeltaEngine(delta_kuo2016().geometry)),
    ("formulation", lambda: delta_model(delta_kuo2016(), "newton-euler")),
    ("force", lambda: ExplicitDeltaEngine(delta_kuo2016()).inverse_dynamics(
        (0, 0, 0.5), np.zeros(3), np.zeros(3), force=(0.0, float("nan"), 0.0))),
])
def test_bad_model_input_names_the_parameter(name, build):
    with pytest.raises(ValueError, match=rf"^invalid {re.escape(name)}\b"):
        build()


def test_scalar_fast_path_refuses_a_serial_singularity():
    """At the bottom of the workspace on the axis all legs are stretched (U_i . T_i = 0):
    the scalar path (simulation, controllers) raises like the vectorised one instead of
    returning |J| ~ 1e17."""
    from elastodyn.kinematics import SingularConfigurationError
    robot = delta_kuo2016()
    g = robot.geometry
    X = [0.0, 0.0, math.sqrt((g.upper_length + g.lower_length) ** 2 - g.offset**2)]
    model = ExplicitDeltaEngine(robot)
    for call in (lambda: model.point(X), lambda: model.rhs(0.0, np.r_[X, 0, 0, 0]),
                 lambda: model.torque_point(X, [0, 0, 0], [0, 0, 0]),
                 lambda: MultiplierDeltaEngine(robot).torque_point(X, [0, 0, 0], [0, 0, 0])):
        with pytest.raises(SingularConfigurationError, match="condition number"):
            call()
