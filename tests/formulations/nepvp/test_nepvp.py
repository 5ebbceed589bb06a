"""NE-PVP model of the flexible five-bar PRRRP (Briot & Khalil 2013) against independent
references: a linear frame finite-element model (reference_five_bar_frame), a Lagrangian
derivation from energies (reference_five_bar_lagrange), statics by hand, energy
conservation and the rigid limit."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.description.tree import prrrp_briot2013
from elastodyn.formulations.nepvp.engine import NEPVPEngine

from reference_five_bar_frame import frame_frequencies



@pytest.fixture(scope="module")
def model1():
    return NEPVPEngine(prrrp_briot2013())


@pytest.fixture(scope="module")
def model2():
    return NEPVPEngine(prrrp_briot2013(elements=2))


@pytest.mark.parametrize("q4", [-0.5, -0.25, 0.0, 0.25, 0.5])
def test_frequencies_equal_linear_frame_model(model1, model2, q4):
    """Same structure, same mesh (pinned joints, 1 kg point mass at P, consistent
    translational mass): the NE-PVP model linearized with the actuators locked is the
    frame model in other coordinates (floating frames clamped at the joints): equal to
    round-off of the eigen-solvers, 1e-9 relative."""
    for m, n in ((model1, 1), (model2, 2)):
        w, _ = m.modes([0.0, q4])
        ref = frame_frequencies(q4, n=n)
        np.testing.assert_allclose(w / (2 * np.pi), ref, rtol=1e-9)


def test_frequencies_converge_to_pinned_pinned_beam():
    """The two lowest modes are the first bending modes of the beams, pinned at both
    ends (the 1 kg mass at P barely moves): f = (pi/L)^2 sqrt(EI/(rho A)) / (2 pi) =
    28.3406 Hz. Cubic elements converge as h^4: errors 1.1e-1, 3.9e-3, 2.6e-4 for
    n = 1, 2, 4 (the frame reference gives the same sequence); the end mass adds a
    small offset (the mode is not exactly pinned-pinned): 2e-3 at n = 4."""
    E, rho, a, L = 70e9, 2800.0, 2e-3, 0.4
    f_exact = (np.pi / L) ** 2 * np.sqrt(E * a ** 4 / 12 / (rho * a * a)) / (2 * np.pi)
    errs = []
    for n in (1, 2, 4):
        w, _ = NEPVPEngine(prrrp_briot2013(elements=n)).modes([0.0, 0.0])
        errs.append(abs(w[0] / (2 * np.pi) - f_exact) / f_exact)
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 2e-3


def test_static_actuator_forces_by_hand(model1):
    """At rest under gravity, with q1 = q4 = 0 (symmetric pose), each actuator carries
    half of the moving weight: (1 kg platform + 1 kg carriage x 2 + both beams) g / 2,
    pulling against gravity (tau < 0 along +z0). Elastic equations balanced at the
    static deflection to 1e-9 N."""
    q, e = model1.static_deflection([0.0, 0.0])
    M, c = model1.dynamics(q, e, np.zeros(2), np.zeros(6))
    beams = 2 * 2800.0 * 4e-6 * 0.4
    np.testing.assert_allclose(c[:2], -(3.0 + beams) * 9.81 / 2, rtol=1e-9)
    assert np.abs(c[2:]).max() < 1e-9
    # beams hang in tension: the tips stretch (u > 0) and sag symmetrically
    assert e[0] > 0 and e[3] > 0
    np.testing.assert_allclose(e[1], -e[4], rtol=1e-9)
    assert np.allclose(M, M.T, atol=1e-14) and np.linalg.eigvalsh(M).min() > 0


def test_inverse_and_direct_problems_invert_each_other(model1):
    """tau from the inverse problem fed to the direct problem gives back the actuated
    accelerations and the same elastic accelerations; both agree with M and c
    (symbolic LDL^T solves against numpy): round-off, 1e-9."""
    rng = np.random.default_rng(1)
    e = rng.normal(scale=1e-4, size=6)
    q = model1.closure([0.05, -0.1], e)
    qd, ed, qdd = rng.normal(size=2), rng.normal(scale=1e-2, size=6), rng.normal(size=2)
    tau, edd = model1.inverse(q, e, qd, ed, qdd)
    qdd2, edd2 = model1.direct(q, e, qd, ed, tau)
    np.testing.assert_allclose(qdd2, qdd, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(edd2, edd, rtol=1e-9, atol=1e-9 * np.abs(edd).max())
    M, c = model1.dynamics(q, e, qd, ed)
    acc = np.concatenate([qdd, edd])
    np.testing.assert_allclose(M @ acc + c, np.concatenate([tau, np.zeros(6)]),
                               atol=1e-8 * np.abs(c).max())


@pytest.fixture(scope="module")
def linear_models():
    """Linear strain (no geometric stiffening), as the Lagrange reference."""
    base = prrrp_briot2013().with_geometric_stiffening(False)
    return {n: NEPVPEngine(base.with_elements(n)) for n in (1, 2)}


@pytest.mark.parametrize("n", [1, 2])
def test_recursive_model_equals_lagrange_equations(n, linear_models):
    """The recursive NE-PVP model (MDH recursion, body NE terms, virtual-power closure)
    against the Lagrange equations of the same discretized five-bar derived from its
    energies by an independent code path (reference_five_bar_lagrange: world positions,
    symbolic energies, constraint Jacobian). Random closed states with deflections of
    a few mm and arbitrary velocities: M and c agree to 1e-10 relative (the issue's
    bound; both are exact up to round-off). Linear strain on both sides; the von Karman
    stiffening is tested against its energy below."""
    from reference_five_bar_lagrange import lagrange_five_bar
    m = linear_models[n]
    rng = np.random.default_rng(10 + n)
    for _ in range(3):
        qa = rng.uniform(-0.2, 0.2, 2)
        e = rng.normal(scale=2e-3, size=m.ne)
        e[0::3] *= 1e-3           # axial stretch stays small (stiff)
        qd, ed = rng.normal(size=2), rng.normal(scale=0.05, size=m.ne)
        q = m.closure(qa, e)
        M, c = m.dynamics(q, e, qd, ed)
        h = m.ne // 2
        ref = lagrange_five_bar(qa[0], qa[1], e[:h], e[h:], qd[0], qd[1], ed[:h], ed[h:],
                                n=n, q2_guess=q[1], q5_guess=q[4])
        np.testing.assert_allclose([ref["q2"], ref["q5"]], q[[1, 4]], atol=1e-12)
        assert np.abs(M - ref["M"]).max() <= 1e-10 * np.abs(ref["M"]).max()
        assert np.abs(c - ref["c"]).max() <= 1e-10 * np.abs(ref["c"]).max()


def test_geometric_stiffening_force_is_the_gradient_of_the_strain_energy(model1, linear_models):
    """With stiffening, the elastic equations gain dU_nl/dq_e, U = EA L/2 (u' + mean of
    v'^2/2)^2 + EI/2 int v''^2 (the membrane strain constant over the element: its
    element mean, which avoids membrane locking; nepvp._stiffening): compare the
    difference of the two models' c (rest, no velocities, same state: every other term
    is identical) with central differences of U evaluated independently (numpy, 20
    Gauss points per element, element shapes of the foundations). Step 1e-7 of O(1e-3)
    coordinates: truncation ~1e-8 relative; asserted 1e-6."""
    from elastodyn.fem.elements import BeamElement
    from elastodyn.fem.shapes import gauss_legendre_01
    el = BeamElement(spatial=False, order="cubic")
    L, EA = 0.4, 70e9 * 4e-6  # the bending energy is linear: it cancels in U_nl
    x, w = gauss_legendre_01(20)

    def U_nl(eb):  # one beam, one element, node 0 clamped
        d = np.concatenate([np.zeros(3), eb])
        up = el.shape("u", x, L, deriv=1) @ d
        vp = el.shape("v", x, L, deriv=1) @ d
        # u' is constant on the element: the element mean of the strain is u' + mean(h)
        return 0.5 * EA * L * (np.sum(w * (up + 0.5 * vp ** 2)) ** 2 - np.sum(w * up) ** 2)

    rng = np.random.default_rng(5)
    e = rng.normal(scale=1e-3, size=6) * np.array([1e-2, 1, 1, 1e-2, 1, 1])
    lin = linear_models[1]
    q = model1.closure([0.02, -0.03], e)
    z2, z6 = np.zeros(2), np.zeros(6)
    diff = model1.dynamics(q, e, z2, z6)[1] - lin.dynamics(q, e, z2, z6)[1]
    assert np.abs(diff[:2]).max() < 1e-9
    grad = np.zeros(6)
    h = 1e-7
    for k in range(6):
        dp, dm = e.copy(), e.copy()
        dp[k] += h
        dm[k] -= h
        beam = slice(0, 3) if k < 3 else slice(3, 6)
        grad[k] = (U_nl(dp[beam]) - U_nl(dm[beam])) / (2 * h)
    np.testing.assert_allclose(diff[2:], grad, rtol=1e-6, atol=1e-6 * np.abs(grad).max())


def test_tension_stiffens_the_loaded_mechanism(model1, linear_models):
    """Tangent stiffness of the elastic equations at the static equilibrium under
    gravity (beams in tension, 7.4 N): positive definite with the von Karman strain;
    with linear strain the kinematic load term (-T v^2/2L of the chord lengthening)
    exceeds the bending stiffness and the equilibrium is unstable."""
    import scipy.linalg as sla
    z2, z6 = np.zeros(2), np.zeros(6)
    for m, stable in ((model1, True), (linear_models[1], False)):
        q, e = m.static_deflection([0.0, 0.0])

        def ce(x):
            qq = m.closure([0.0, 0.0], x, guess=q)
            return m.dynamics(qq, x, z2, z6)[1][2:]
        J = np.empty((6, 6))
        for k in range(6):
            d = np.zeros(6)
            d[k] = 1e-7
            J[:, k] = (ce(e + d) - ce(e - d)) / 2e-7
        Mee = m.dynamics(q, e, z2, z6)[0][2:, 2:]
        lam = np.sort(sla.eigvals(J, Mee).real)
        assert (lam[0] > 0) == stable


def test_unactuated_mechanism_conserves_energy(linear_models):
    """Free, undamped, unactuated five-bar without gravity (linear strain: U = e^T K e
    / 2), started with carriage and elastic velocities: T + U = qd^T M qd / 2 + U stays
    constant. DOP853 at rtol 1e-10 over 0.05 s (about 9 periods of the stiffest mode):
    drift below 1e-7 of the energy."""
    from dataclasses import replace
    from elastodyn.formulations.nepvp.simulation import simulate_direct
    base = linear_models[1].robot
    m = NEPVPEngine(replace(base, gravity=(0.0, 0.0, 0.0)))
    K = m.stiffness
    t, qa, qda, e, ed, Q = simulate_direct(m, [0.0, 0.0], 0.05, qd_a0=[0.3, -0.2],
                                           e0=np.array([0, 1e-3, 0, 0, -1e-3, 0]),
                                           ed0=np.array([0, 0.05, 0.1, 0, 0.02, 0]),
                                           step=5e-3)
    E = []
    for k in range(len(t)):
        M, _ = m.dynamics(Q[k], e[k], qda[k], ed[k])
        v = np.concatenate([qda[k], ed[k]])
        E.append(0.5 * v @ M @ v + 0.5 * e[k] @ K @ e[k])
    E = np.array(E)
    assert np.abs(qa[-1]).max() > 1e-3          # it moved
    assert np.abs(E - E[0]).max() < 1e-7 * E[0]


def test_motor_inertia_and_friction_eq26(model1):
    """Eq. (26): a rotor inertia adds to its joint's diagonal of M only; viscous and
    Coulomb friction add forces whose power, qd . delta_c, is the dissipated power
    sum f_v qd_j^2 + f_s |qd_j| over the joints, passive ones included (their friction
    reaches the generalized coordinates through the closure Jacobian). Round-off."""
    from dataclasses import replace
    base = model1.robot
    fr = NEPVPEngine(replace(base, motor_inertia={"q1": 0.5},
                            viscous={"q1": 2.0, "q2": 0.3}, coulomb={"q4": 1.5}))
    rng = np.random.default_rng(5)
    e = rng.normal(scale=1e-4, size=6)
    qa, qd, ed = np.array([0.05, -0.1]), rng.normal(size=2), rng.normal(scale=1e-2, size=6)
    q = model1.closure(qa, e)
    M0, c0 = model1.dynamics(q, e, qd, ed)
    M1, c1 = fr.dynamics(q, e, qd, ed)
    dM = M1 - M0
    assert abs(dM[0, 0] - 0.5) < 1e-12
    dM[0, 0] = 0.0
    assert np.abs(dM).max() < 1e-12 * np.abs(M0).max()
    qdp = model1.kinematics(q, e, qd, ed)[0]             # (q2, q3, q5) rates
    power = np.concatenate([qd, ed]) @ (c1 - c0)
    expected = 2.0 * qd[0] ** 2 + 0.3 * qdp[0] ** 2 + 1.5 * abs(qd[1])
    assert abs(power - expected) < 1e-10 * expected
