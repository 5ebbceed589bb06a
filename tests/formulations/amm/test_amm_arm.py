"""Planar flexible arms by assumed modes (Yu & Chen 2019): the generated model against
an independent Lagrangian derivation, energy conservation, the geometry of the joint
torques, the rigid limit (a recursive Newton-Euler code) and the clamped-link
frequencies."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.description.arm import ArmLink, LumpedMass, PlanarArm, arm_yu2019
from elastodyn.exceptions import InputError
from elastodyn.formulations.amm.engine import AMMEngine



def _arm(n=2, modes=2, basis="sine", E=2e11, g=9.81):
    links = (ArmLink(0.5, 0.4, E, 1e-10, 0.5, -0.3), ArmLink(0.4, 0.3, E, 5e-11, 0.2, -0.6),
             ArmLink(0.3, 0.2, E, 3e-11, 0.1, 0.0))[:n]
    return PlanarArm("test-arm", links, modes=modes, basis=basis, gravity=g)


def _bodies_arm(n=3, modes=2, basis="sine", E=2e11, g=9.81):
    """An arm with every kind of rigid body: two, one and no lumped masses with rotary
    inertias (placed by mu or by the distance from the joint), hubs, a payload. The
    rotary inertias are of the order of the links' (m L^2 / 3 = 0.033 kg m^2 for link 1)
    and J c^2 (c ~ k pi / L) of the order of the modal masses m / 2."""
    links = (ArmLink(0.5, 0.4, E, 1e-10, hub_inertia=3e-3,
                     lumped_masses=(LumpedMass(0.5, 2e-3, mu=-0.3),
                                    LumpedMass(0.3, 1e-3, position=0.5))),
             ArmLink(0.4, 0.3, E, 5e-11, hub_inertia=1e-3,
                     lumped_masses=(LumpedMass(0.2, 5e-4, position=0.16),)),
             ArmLink(0.3, 0.2, E, 3e-11, hub_inertia=2e-4, lumped_masses=()))[:n]
    return PlanarArm("bodies-arm", links, modes=modes, basis=basis, gravity=g,
                     payload=LumpedMass(0.15, 4e-4))


@pytest.mark.parametrize("basis", ["sine", "clamped-free"])
def test_free_arm_conserves_energy(basis):
    """No torque, no friction, gravity on, lumped masses inside the links (mu = -0.3,
    -0.6): T + V (V written separately from the generator, AMMEngine.potential) stays
    constant along a swing (DOP853 at rtol 1e-10): 1e-9 asserted, 3e-11 measured."""
    m = AMMEngine(_arm(basis=basis))
    x0 = np.concatenate([[0.3, -0.5, 1e-3, 2e-4, -1e-3, 5e-4],
                         [0.5, 0.1, 0.01, 0.0, -0.02, 0.01]])

    def rhs(t, x):
        return np.concatenate([x[6:], m.accelerations(x[:6], x[6:], np.zeros(2), False)])

    sol = solve_ivp(rhs, (0, 0.5), x0, method="DOP853", rtol=1e-10, atol=1e-13,
                    dense_output=True)
    E = np.array([m.energy(sol.sol(t)[:6], sol.sol(t)[6:]) for t in np.linspace(0, 0.5, 40)])
    assert np.abs(sol.y[0] - x0[0]).max() > 0.5             # it swung
    assert np.ptp(E) < 1e-9 * abs(E[0])


def test_joint_torque_matrix_is_the_motor_rotation_gradient():
    """B[:, i] is the gradient of motor i's rotation theta_i + y_i'(root) - y_{i-1}'(tip),
    here computed from the mode slopes by central differences in xi (step 1e-6:
    error 1e-10 relative)."""
    arm = _arm(3, modes=3)
    m = AMMEngine(arm)
    B = m.dynamics(np.zeros(m.nq), np.zeros(m.nq))["B"]
    h = 1e-6

    def slope(i, xi):          # dy/dx per unit f_ik, by differences of the shapes
        lo, hi = max(xi - h, 0.0), min(xi + h, 1.0)
        return (m.shapes.values([hi])[0] - m.shapes.values([lo])[0]) / (hi - lo) / \
            arm.links[i].length

    for i in range(3):
        ref = np.zeros(m.nq)
        ref[i] = 1.0
        ref[3 + 3 * i:3 + 3 * (i + 1)] += slope(i, 0.0)
        if i:
            ref[3 + 3 * (i - 1):3 + 3 * i] -= slope(i - 1, 1.0)
        np.testing.assert_allclose(B[:, i], ref, atol=1e-5 * np.abs(ref).max())


def _cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def _rigid_rne(arm, th, thd, thdd):
    """Recursive Newton-Euler of the rigid planar chain: links as uniform rods (mass m,
    centre at mid-chord, inertia m L^2 / 12) plus the rigid bodies at (1 + mu) L (mass M,
    inertia J about their centre; the payload at L), the hub at the joint (inertia only);
    gravity along -y0. Joint torques (n,)."""
    n = len(arm.links)
    ang = np.cumsum(th)
    w = np.cumsum(thd)
    al = np.cumsum(thdd)
    acc = np.zeros(2)
    bodies = []
    for i, lk in enumerate(arm.links):
        e = np.array([np.cos(ang[i]), np.sin(ang[i])])
        nv = np.array([-e[1], e[0]])
        L = lk.length
        pts = [(lk.mass, 0.5 * L, lk.mass * L * L / 12)]
        pts += [(mass, (1 + mu) * L, J) for mass, J, mu in arm.link_bodies(i)]
        pts.append((0.0, 0.0, lk.hub_inertia))
        forces = []
        for mass, r, I in pts:
            a = acc + al[i] * r * nv - w[i] ** 2 * r * e + np.array([0.0, arm.gravity])
            forces.append((mass, r, I, mass * a))
        bodies.append((e, nv, L, forces))
        acc = acc + al[i] * L * nv - w[i] ** 2 * L * e
    tau = np.zeros(n)
    F_next, M_next = np.zeros(2), 0.0          # force/moment from link i+1 at its joint
    for i in reversed(range(n)):
        e, nv, L, forces = bodies[i]
        F = F_next.copy()
        Mo = M_next + _cross(L * e, F_next)
        for mass, r, I, f in forces:
            F = F + f
            Mo = Mo + _cross(r * e, f) + I * al[i]
        tau[i] = Mo
        F_next, M_next = F, Mo
    return tau


@pytest.mark.parametrize("bodies", [False, True])
def test_rigid_limit_equals_recursive_newton_euler(bodies):
    """With the modal coordinates and rates at zero, the joint rows (M_tt theta_dd + c_t)
    are the rigid chain's inverse dynamics, computed here by recursive Newton-Euler
    (another method): round-off, 1e-10. Also with rotary inertias, hubs, several lumped
    masses per link and a payload (a rigid body of inertia J turns with the chord when
    the link is undeformed)."""
    rng = np.random.default_rng(4)
    arm = _bodies_arm(3) if bodies else _arm(3)
    m = AMMEngine(arm)
    for _ in range(3):
        th, thd, thdd = rng.uniform(-2, 2, 3), rng.normal(size=3), rng.normal(size=3)
        q = np.concatenate([th, np.zeros(6)])
        qd = np.concatenate([thd, np.zeros(6)])
        d = m.dynamics(q, qd)
        tau = d["M"][:3, :3] @ thdd + d["c"][:3]
        np.testing.assert_allclose(tau, _rigid_rne(arm, th, thd, thdd), rtol=1e-10,
                                   atol=1e-12)


def test_inputs_are_validated():
    with pytest.raises(InputError, match="mu"):
        ArmLink(0.5, 0.3, 2e11, 1e-10, 0.1, 0.5)
    with pytest.raises(InputError, match="basis"):
        PlanarArm("x", (ArmLink(0.5, 0.3, 2e11, 1e-10),), basis="legendre")
    with pytest.raises(InputError, match="gear_ratio"):
        ArmLink(0.5, 0.3, 2e11, 1e-10, gear_ratio=0.5)
    assert arm_yu2019().n == 2


@pytest.mark.parametrize("n", [1, 2, 3])
def test_generated_model_equals_lagrange_equations(n):
    """The generated M, c = H q_d + N and B against the Lagrange equations of the same
    discretized arm derived from its energies by an independent code path
    (reference_arm_lagrange: world positions, exact integrals of the sine modes, sympy
    differentiation). Random parameters (lumped masses anywhere on the links) and
    states; the parameters enter as symbols (input p) and as numbers: both agree to
    1e-10 relative (round-off)."""
    from elastodyn.formulations.amm.generator import generate_amm
    from elastodyn.symbolic.compiled import compile_program
    from reference_arm_lagrange import arm_lagrange
    rng = np.random.default_rng(30 + n)
    links = tuple(ArmLink(rng.uniform(0.2, 0.8), rng.uniform(0.1, 1.0), 2e11,
                          rng.uniform(2e-11, 2e-10), rng.uniform(0.0, 2.0),
                          rng.uniform(-1.0, 0.0)) for _ in range(n))
    arm = PlanarArm("rand", links, modes=2, gravity=9.81)
    params = {"L": [k.length for k in links], "m": [k.mass for k in links],
              "EI": [k.E * k.I for k in links], "M": [k.lumped_mass for k in links],
              "mu": [k.mu for k in links], "g": 9.81}
    p = np.array([v for k in links for v in (k.length, k.mass, k.E * k.I, k.lumped_mass,
                                             k.mu)] + [9.81])
    numeric = AMMEngine(arm)
    symbolic = compile_program(generate_amm(arm, symbolic=True)[0])
    nq = numeric.nq
    for _ in range(2):
        q = np.concatenate([rng.uniform(-2, 2, n), rng.normal(scale=5e-3, size=2 * n)])
        qd = np.concatenate([rng.normal(size=n), rng.normal(scale=0.05, size=2 * n)])
        ref = arm_lagrange(n, 2, params, q, qd)
        d = numeric.dynamics(q, qd)
        s_ = symbolic(q, qd, np.zeros(n), p)
        for M, c, B in ((d["M"], d["c"], d["B"]),
                        (s_["M"], s_["c"].ravel(), s_["B"])):
            assert M.shape == (nq, nq)
            assert np.abs(M - ref["M"]).max() <= 1e-10 * np.abs(ref["M"]).max()
            assert np.abs(c - ref["c"]).max() <= 1e-10 * np.abs(ref["c"]).max()
            assert np.abs(B - ref["B"]).max() <= 1e-10 * np.abs(ref["B"]).max()


@pytest.mark.parametrize("tip", [0.0, 0.343])
def test_clamped_link_frequencies_converge_to_the_cantilever(tip):
    """One link of arm-yu2019 with its motor shaft clamped, with and without the tip
    mass, against the Euler-Bernoulli cantilever (characteristic equation solved here):
    the chord-projected clamped-free modes reproduce it exactly without tip mass
    (round-off, 1e-12) and converge fast with it (first mode 1.0 % at s = 1, 2.8e-5 at
    s = 8); the sine modes of Yu eq. 4 converge slowly, as 1/s (48 % then 5 % at s = 8
    without tip mass): they cannot bend at the clamped root, where their curvature
    vanishes."""
    from elastodyn.formulations.amm.simulation import cantilever_frequencies, clamped_link_frequencies
    lk = arm_yu2019().links[1]
    ref = cantilever_frequencies(lk, 3, tip)
    if tip == 0.0:     # the classical roots 1.87510, 4.69409, 7.85476 (Blevins 8-1)
        lam = np.sqrt(ref / np.sqrt(lk.E * lk.I / (lk.mass * lk.length ** 3)))
        np.testing.assert_allclose(lam, [1.8751040687, 4.6940911330, 7.8547574382],
                                   rtol=1e-9)
    err = {b: [abs(clamped_link_frequencies(lk, s, b, tip)[0] / ref[0] - 1)
               for s in (1, 2, 4, 8)] for b in ("sine", "clamped-free")}
    for b in err:
        assert all(x > y for x, y in zip(err[b], err[b][1:])) or max(err[b]) < 1e-12, b
    assert err["sine"][-1] > 0.03 and err["sine"][0] > 0.3          # slow
    if tip == 0.0:
        assert max(err["clamped-free"]) < 1e-12
        w = clamped_link_frequencies(lk, 3, "clamped-free")
        np.testing.assert_allclose(w, ref, rtol=1e-12)
    else:
        assert err["clamped-free"][0] < 0.02 and err["clamped-free"][-1] < 1e-4
    assert all(c < s for c, s in zip(err["clamped-free"], err["sine"]))


def test_pd_loop_frequencies_spectrum_equals_linearization():
    """Yu 4.1 without friction (a linear check): the joints held by the PD at (45, -45)
    deg and released under gravity. The two lowest peaks of the tip-acceleration
    spectrum over 6 s equal the damped frequencies Im(lambda) of the linearized closed
    loop (about the PD equilibrium under gravity; 11.87 and 45.03 rad/s) within the
    spectral resolution 2 pi / 6 s = 1.05 rad/s (asserted 0.5 rad/s after peak
    interpolation). Radau and DOP853 give the same motion (1e-6 rad, their
    tolerances). The loop on the encoder angles is stable: every pair is damped."""
    from elastodyn.formulations.amm.simulation import (hold_reference, linearized_closed_loop,
                                        simulate_pd, spectrum_peaks)
    m = AMMEngine(arm_yu2019())
    th0 = np.radians([45.0, -45.0])
    qe, lam, w, zeta = linearized_closed_loop(m, th0, 125.0, 25.0, friction=False)
    assert np.all(zeta > 0)
    sim = simulate_pd(m, hold_reference(th0), 6.0, 125.0, 25.0, friction=False, step=2e-3)
    peaks, _, _ = spectrum_peaks(sim.time, sim.tip_acceleration[:, 1, 1])
    np.testing.assert_allclose(peaks, lam.imag[:2], atol=0.5)
    other = simulate_pd(m, hold_reference(th0), 0.3, 125.0, 25.0, friction=False,
                        step=2e-3, method="DOP853")
    np.testing.assert_allclose(other.q[:, :2], sim.q[:151, :2], atol=1e-6)
    # it settles to the linearization's equilibrium (damped: zeta >= 0.08)
    assert np.abs(sim.q[-1] - qe).max() < 1e-2 * np.abs(qe).max()


def test_chord_angle_pd_would_be_unstable():
    """The decision of simulate_pd: a PD on the chord angles (non-collocated with the
    torques) destabilizes the flexible modes of arm-yu2019; the same gains on the
    encoder angles B^T q are stable (previous test)."""
    m = AMMEngine(arm_yu2019())
    n, nq = m.n, m.nq
    th0 = np.radians([45.0, -45.0])
    z = np.zeros(nq)
    d0 = m.dynamics(np.concatenate([th0, np.zeros(nq - n)]), z)
    B = d0["B"]
    S = np.zeros((nq, n))
    S[:n, :n] = np.eye(n)            # chord angles

    def force(q, qd):
        d = m.dynamics(q, qd)
        return d["c"] - B @ (125.0 * (th0 - q @ S) - 25.0 * (qd @ S))

    q = np.concatenate([th0, np.zeros(nq - n)])
    h = 1e-7
    K = np.column_stack([(force(q + h * e, z) - force(q - h * e, z)) / (2 * h)
                         for e in np.eye(nq)])
    C = np.column_stack([(force(q, h * e) - force(q, -h * e)) / (2 * h) for e in np.eye(nq)])
    Mi = np.linalg.inv(d0["M"])
    A = np.block([[np.zeros((nq, nq)), np.eye(nq)], [-Mi @ K, -Mi @ C]])
    assert np.linalg.eigvals(A).real.max() > 1.0


def test_stiff_links_reproduce_the_rigid_arm():
    """E x 1e4: the PD tracking of Yu's circle (0.5 s, no friction) by the flexible model
    equals a rigid two-link arm simulated from the recursive Newton-Euler code above
    (M by unit accelerations). The elastic effects scale as 1/E: largest joint-angle
    difference 7.8e-4, 7.8e-5, 7.8e-6 rad at E x 1e2, 1e3, 1e4 (measured); asserted
    2e-5 rad at 1e4, with modal coordinates below 1e-6 m."""
    from elastodyn.formulations.amm.simulation import circle_reference, simulate_pd
    from elastodyn.trajectories import Circle
    arm = arm_yu2019().with_stiffness_scale(1e4)
    m = AMMEngine(arm)
    ref = circle_reference(m, Circle.yu2019())
    sim = simulate_pd(m, ref, 0.5, 125.0, 25.0, friction=False, step=5e-3)

    def rigid(t, x):
        th, thd = x[:2], x[2:]
        bias = _rigid_rne(arm, th, thd, np.zeros(2))
        M = np.column_stack([_rigid_rne(arm, th, thd, e) - bias for e in np.eye(2)])
        r, rd = ref(np.array([t]))
        tau = 125.0 * (r[0] - th) + 25.0 * (rd[0] - thd)
        return np.concatenate([thd, np.linalg.solve(M, tau - bias)])

    th0, _ = ref(np.array([0.0]))
    sol = solve_ivp(rigid, (0, 0.5), np.concatenate([th0[0], np.zeros(2)]), method="DOP853",
                    t_eval=sim.time, rtol=1e-10, atol=1e-12)
    assert np.abs(sim.q[:, 2:]).max() < 1e-6
    np.testing.assert_allclose(sim.q[:, :2], sol.y[:2].T, atol=2e-5)


def _nepvp_arm(arm):
    """The same arm as a one-leg NE-PVP tree (Briot & Khalil): revolute joints about z0,
    beams with the same assumed modes in their chord frames, the lumped masses as rigid
    bodies (mass, inertia J about z) on fixed frames at (1 + mu) L on the deflected axes,
    which turn with the section (rz = v'), the hubs as bodies of inertia Jh on fixed
    frames at the roots (d = 0), the payload as the platform (mass, inertia) at the tip;
    gravity along -y0."""
    from elastodyn.description.materials import Material, Section
    from elastodyn.description.tree import (FlexibleBeam, MDHJoint, RigidBody,
                                            TreeRobot)

    def body(mass, J):
        return RigidBody(mass, inertia=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, J)))

    joints, bodies = [], {}
    beam = 0                    # index of the previous beam's joint (0: the base)
    for i, lk in enumerate(arm.links):
        d = arm.links[i - 1].length if i else 0.0
        # joint i + 1 hangs on beam i at its tip
        joints.append(MDHJoint(f"q{i + 1}", beam, "revolute", True, d=d))
        beam = len(joints)
        A = 1e-4
        sec = Section(area=A, iy=lk.I, iz=lk.I, j=2 * lk.I)
        bodies[beam] = FlexibleBeam(lk.length, sec,
                                    Material(lk.E, lk.E / 2.6, lk.mass / (A * lk.length)),
                                    shapes=arm.basis, modes=arm.modes,
                                    geometric_stiffening=False)
        for k, (b, mu) in enumerate(zip(lk.lumped_masses, lk.mus)):
            joints.append(MDHJoint(f"lump{i + 1}_{k + 1}", beam, "fixed",
                                   d=(1 + mu) * lk.length))
            bodies[len(joints)] = body(b.mass, b.inertia)
        if lk.hub_inertia:
            joints.append(MDHJoint(f"hub{i + 1}", beam, "fixed", d=0.0))
            bodies[len(joints)] = body(0.0, lk.hub_inertia)
    joints.append(MDHJoint("tip", beam, "fixed", d=arm.links[-1].length))
    pl = arm.payload
    return TreeRobot("arm-nepvp", tuple(joints), bodies, terminals=(len(joints),),
                     platform=body(0.0, 0.0) if pl is None else body(pl.mass, pl.inertia),
                     gravity=(0.0, -arm.gravity, 0.0),
                     closure_rows=(0, 1, 5), home={f"q{i + 1}": 0.0 for i in range(arm.n)})


@pytest.mark.parametrize("bodies", [False, True])
@pytest.mark.parametrize("basis", ["sine", "clamped-free"])
def test_nepvp_serial_arm_equals_the_amm_model(basis, bodies):
    """Cross-formulation: the recursive Newton-Euler / virtual-powers model (one leg, no
    loop) of the same arm with the same assumed modes equals the AMM/Lagrange model.
    The NE-PVP joint variable of joint i + 1 is measured from the frame carried by the
    tip of beam i, which turns with the tip slope: q_NE = T q with q_{i+1,NE} =
    theta_{i+1} - phi'(1) f_i / L_i, so M = T^T M_NE T and c = T^T c_NE (T constant).
    Random states: 1e-10 relative (round-off). With rotary inertias, hubs, several
    lumped masses per link and a payload (``bodies``), this checks the rotation of the
    carried bodies, phi_i + dy_i/dx, against the NE-PVP beam's carried frames."""
    from elastodyn.formulations.nepvp.engine import NEPVPEngine
    arm = _bodies_arm(3, basis=basis) if bodies else _arm(3, basis=basis)
    amm = AMMEngine(arm)
    ne = NEPVPEngine(_nepvp_arm(arm))
    assert ne.na == 3 and ne.ne == 6
    d1 = amm.shapes.integrals["d1"]
    T = np.eye(amm.nq)
    for i in range(2):
        T[i + 1, 3 + 2 * i:3 + 2 * i + 2] = -d1 / arm.links[i].length
    rng = np.random.default_rng(8)
    for _ in range(3):
        q = np.concatenate([rng.uniform(-2, 2, 3), rng.normal(scale=5e-3, size=6)])
        qd = np.concatenate([rng.normal(size=3), rng.normal(scale=0.05, size=6)])
        qn, qdn = T @ q, T @ qd
        Mn, cn = ne.dynamics(ne.closure(qn[:3]), qn[3:], qdn[:3], qdn[3:])
        d = amm.dynamics(q, qd)
        np.testing.assert_allclose(T.T @ Mn @ T, d["M"], rtol=0,
                                   atol=1e-10 * np.abs(d["M"]).max())
        np.testing.assert_allclose(T.T @ cn, d["c"], rtol=0, atol=1e-10 * np.abs(d["c"]).max())
