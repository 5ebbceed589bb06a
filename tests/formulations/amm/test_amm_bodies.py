"""Rigid bodies on the assumed-modes arm (lumped masses with rotary inertias, several per
link, hubs, a payload): the description, the generated model against an independent
Lagrangian derivation, energy conservation, the clamped-link frequency against the exact
frequency equation of a cantilever with a tip mass and a tip rotary inertia, and the
operation counts of Yu's arms (unchanged)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from elastodyn.description.arm import ArmLink, LumpedMass, PlanarArm, arm_yu2019
from elastodyn.exceptions import InputError
from elastodyn.formulations.amm.generator import generate_amm
from elastodyn.formulations.amm.engine import AMMEngine



# ------------------------------------------------------------------ description
def test_lumped_mass_positions_and_legacy_arguments_give_one_model():
    """The old arguments (lumped_mass, mu), a LumpedMass placed by mu and one placed by
    its distance s from the joint (s = (1 + mu) L) describe the same arm: the same M and
    c (1e-12 relative; s / L - 1 differs from mu by round-off). A payload is a tip body
    of the last link: the same model as the body put in its lumped_masses (round-off)."""
    E, L = 2e11, 0.5
    a = ArmLink(L, 0.4, E, 1e-10, 0.5, -0.3)
    b = ArmLink(L, 0.4, E, 1e-10, lumped_masses=(LumpedMass(0.5, mu=-0.3),))
    c = ArmLink(L, 0.4, E, 1e-10, lumped_masses=(LumpedMass(0.5, position=0.7 * L),))
    assert a.lumped_masses == b.lumped_masses and abs(c.mus[0] + 0.3) < 1e-15
    rng = np.random.default_rng(1)
    q = np.concatenate([rng.uniform(-2, 2, 1), rng.normal(scale=5e-3, size=2)])
    qd = rng.normal(size=3)
    ref = AMMEngine(PlanarArm("a", (a,))).dynamics(q, qd)
    for lk in (b, c):
        d = AMMEngine(PlanarArm("b", (lk,))).dynamics(q, qd)
        for k in ("M", "c"):
            np.testing.assert_allclose(d[k], ref[k], rtol=0, atol=1e-12 * np.abs(ref[k]).max())
    tip = LumpedMass(0.3, 2e-4)
    with_payload = AMMEngine(PlanarArm("p", (a,), payload=tip)).dynamics(q, qd)
    as_mass = AMMEngine(PlanarArm("m", (a.with_lumped_masses(*a.lumped_masses, tip),))
                          ).dynamics(q, qd)
    for k in ("M", "c"):
        np.testing.assert_allclose(with_payload[k], as_mass[k], rtol=0,
                                   atol=1e-12 * np.abs(as_mass[k]).max())


def test_replace_of_the_old_arguments_changes_the_mass():
    """dataclasses.replace(link, lumped_mass=...) changes Yu's one lumped mass (it is
    re-derived, not carried over from the old link)."""
    lk = arm_yu2019().links[0]
    assert lk.lumped_masses == (LumpedMass(2.94, 0.0, mu=0.0),)
    new = dataclasses.replace(lk, lumped_mass=1.0, mu=-0.5)
    assert new.lumped_masses == (LumpedMass(1.0, 0.0, mu=-0.5),)
    assert dataclasses.replace(lk, E=1e11).lumped_masses == lk.lumped_masses


@pytest.mark.parametrize("make, name", [
    (lambda: LumpedMass(-1.0), "mass"),
    (lambda: LumpedMass(1.0, -1e-3), "inertia"),
    (lambda: LumpedMass(1.0, position=0.1, mu=-0.5), "position"),
    (lambda: LumpedMass(1.0, mu=0.2), "mu"),
    (lambda: LumpedMass(1.0, position=-0.1), "position"),
    (lambda: ArmLink(0.5, 0.3, 2e11, 1e-10,
                     lumped_masses=(LumpedMass(1.0, position=0.6),)), "position"),
    (lambda: ArmLink(0.5, 0.3, 2e11, 1e-10, 1.0, lumped_masses=()), "lumped_mass"),
    (lambda: ArmLink(0.5, 0.3, 2e11, 1e-10, lumped_masses=(1.0,)), "lumped_masses"),
    (lambda: ArmLink(0.5, 0.3, 2e11, 1e-10, hub_inertia=-1.0), "hub_inertia"),
    (lambda: PlanarArm("x", (ArmLink(0.5, 0.3, 2e11, 1e-10),),
                       payload=LumpedMass(1.0, mu=-0.5)), "payload"),
    (lambda: PlanarArm("x", (ArmLink(0.5, 0.3, 2e11, 1e-10),), payload=1.0), "payload"),
])
def test_bad_bodies_raise_input_error_naming_the_parameter(make, name):
    with pytest.raises(InputError) as err:
        make()
    assert err.value.name == name and isinstance(err.value, ValueError)


# ------------------------------------------------------------------ generated model
def _random_arm(n, rng, counts):
    """Random links with counts[i] lumped masses (rotary inertias, placed by mu or by s),
    hubs and a payload; inertias comparable to the links' m L^2 / 3."""
    links = []
    for i in range(n):
        L = rng.uniform(0.2, 0.8)
        bodies = []
        for k in range(counts[i]):
            mass, J = rng.uniform(0.0, 2.0), rng.uniform(1e-3, 2e-2)
            bodies.append(LumpedMass(mass, J, mu=rng.uniform(-1.0, 0.0)) if k % 2 == 0
                          else LumpedMass(mass, J, position=rng.uniform(0.0, L)))
        links.append(ArmLink(L, rng.uniform(0.1, 1.0), 2e11, rng.uniform(2e-11, 2e-10),
                             hub_inertia=rng.uniform(1e-3, 1e-2),
                             lumped_masses=tuple(bodies)))
    return PlanarArm("rand", tuple(links), modes=2, gravity=9.81,
                     payload=LumpedMass(rng.uniform(0.1, 1.0), rng.uniform(1e-3, 1e-2)))


@pytest.mark.parametrize("n, counts", [(1, (3,)), (2, (2, 1)), (3, (0, 2, 1))])
def test_generated_model_with_bodies_equals_lagrange_equations(n, counts):
    """The generated M, c = H q_d + N and B of an arm with several lumped masses per link
    (none on one link), rotary inertias, hubs and a payload, against the Lagrange
    equations derived from the energies by an independent code path
    (reference_arm_lagrange: world positions, the section angle phi_i + y_i'/L_i
    differentiated by the chain rule, exact integrals of the sine modes, sympy
    differentiation). Random parameters and states; the parameters as numbers and as
    symbols (the input p, in the order documented by AMMSymbols, built here from the
    description): 1e-10 relative (round-off)."""
    from elastodyn.symbolic.compiled import compile_program
    from reference_arm_lagrange import arm_lagrange
    rng = np.random.default_rng(70 + n)
    arm = _random_arm(n, rng, counts)
    links = arm.links
    params = {"L": [k.length for k in links], "m": [k.mass for k in links],
              "EI": [k.E * k.I for k in links],
              "masses": [[(b.mass, mu, b.inertia) for b, mu in zip(k.lumped_masses, k.mus)]
                         for k in links],
              "Jh": [k.hub_inertia for k in links],
              "payload": (arm.payload.mass, arm.payload.inertia), "g": 9.81}
    p = []
    for k in links:
        p += [k.length, k.mass, k.E * k.I]
        for b, mu in zip(k.lumped_masses, k.mus):
            p += [b.mass, mu, b.inertia]          # every J is > 0 here
        p.append(k.hub_inertia)
    p += [arm.payload.mass, arm.payload.inertia, 9.81]
    numeric = AMMEngine(arm)
    prog, sy = generate_amm(arm, symbolic=True)
    assert len(sy.params) == len(p)
    symbolic = compile_program(prog)
    for _ in range(2):
        q = np.concatenate([rng.uniform(-2, 2, n), rng.normal(scale=5e-3, size=2 * n)])
        qd = np.concatenate([rng.normal(size=n), rng.normal(scale=0.05, size=2 * n)])
        ref = arm_lagrange(n, 2, params, q, qd)
        d = numeric.dynamics(q, qd)
        s_ = symbolic(q, qd, np.zeros(n), np.array(p))
        for M, c, B in ((d["M"], d["c"], d["B"]), (s_["M"], s_["c"].ravel(), s_["B"])):
            assert np.abs(M - ref["M"]).max() <= 1e-10 * np.abs(ref["M"]).max()
            assert np.abs(c - ref["c"]).max() <= 1e-10 * np.abs(ref["c"]).max()
            assert np.abs(B - ref["B"]).max() <= 1e-10 * np.abs(ref["B"]).max()
    # the rotary inertias matter: without them M differs by more than 1 %
    bare = dataclasses.replace(arm, payload=LumpedMass(arm.payload.mass), links=tuple(
        k.with_lumped_masses(*(LumpedMass(b.mass, mu=mu)
                               for b, mu in zip(k.lumped_masses, k.mus)))
        for k in links))
    bare = dataclasses.replace(bare, links=tuple(dataclasses.replace(k, hub_inertia=0.0)
                                                 for k in bare.links))
    Mb = AMMEngine(bare).dynamics(q, qd)["M"]
    assert np.abs(Mb - ref["M"]).max() > 1e-2 * np.abs(ref["M"]).max()


@pytest.mark.parametrize("basis", ["sine", "clamped-free"])
def test_free_arm_with_bodies_conserves_energy(basis):
    """No torque, no friction, gravity on; two lumped masses with rotary inertias on
    link 1, one on link 2, hubs and a payload: T + V (V written separately from the
    generator, AMMEngine.potential) stays constant along a swing (DOP853 at rtol
    1e-10): 1e-9 relative asserted (the integrator's error accumulates to about
    1e-11)."""
    arm = PlanarArm("free", (
        ArmLink(0.5, 0.4, 2e11, 1e-10, hub_inertia=3e-3,
                lumped_masses=(LumpedMass(0.5, 2e-3, mu=-0.3),
                               LumpedMass(0.3, 1e-3, position=0.5))),
        ArmLink(0.4, 0.3, 2e11, 5e-11, hub_inertia=1e-3,
                lumped_masses=(LumpedMass(0.2, 5e-4, position=0.16),)),
    ), modes=2, basis=basis, gravity=9.81, payload=LumpedMass(0.15, 4e-4))
    m = AMMEngine(arm)
    x0 = np.concatenate([[0.3, -0.5, 1e-3, 2e-4, -1e-3, 5e-4],
                         [0.5, 0.1, 0.01, 0.0, -0.02, 0.01]])

    def rhs(t, x):
        return np.concatenate([x[6:], m.accelerations(x[:6], x[6:], np.zeros(2), False)])

    sol = solve_ivp(rhs, (0, 0.5), x0, method="DOP853", rtol=1e-10, atol=1e-13,
                    dense_output=True)
    E = np.array([m.energy(sol.sol(t)[:6], sol.sol(t)[6:]) for t in np.linspace(0, 0.5, 40)])
    assert np.abs(sol.y[0] - x0[0]).max() > 0.5             # it swung
    assert np.abs(sol.y[2:6]).max() > 1e-3                  # and bent
    assert np.ptp(E) < 1e-9 * abs(E[0])


# ------------------------------------------------------------------ frequencies
def _tip_body_roots(r, j, count):
    """Roots lam = beta L of the clamped beam with a tip mass (r = M / m) and a tip
    rotary inertia (j = J / (m L^2)), written here from the boundary conditions: y = A
    (cosh - cos)(lam xi) + B (sinh - sin)(lam xi) satisfies y(0) = y'(0) = 0; at the tip
    the moment E I y'' = J omega^2 y' and the shear E I y''' = -M omega^2 y give, with
    omega^2 = lam^4 E I / (m L^3) and derivatives in lam xi,
        [(ch + c) - j lam^3 (sh + s),  (sh + s) - j lam^3 (ch - c)] [A]
        [(sh - s) + r lam (ch - c),    (ch + c) + r lam (sh - s)  ] [B] = 0.
    The determinant, divided by cosh^2 to stay bounded, is scanned in steps of 0.01 and
    refined by Brent's method."""
    def det(lam):
        ch, sh, c, s = 1.0, np.tanh(lam), np.cos(lam) / np.cosh(lam), np.sin(lam) / np.cosh(lam)
        A = np.array([[(ch + c) - j * lam ** 3 * (sh + s), (sh + s) - j * lam ** 3 * (ch - c)],
                      [(sh - s) + r * lam * (ch - c), (ch + c) + r * lam * (sh - s)]])
        return np.linalg.det(A)

    roots, a = [], 1e-3
    while len(roots) < count:
        b = a + 0.01
        if det(a) * det(b) < 0:
            roots.append(brentq(det, a, b, xtol=1e-15))
        a = b
    return np.array(roots)


def test_clamped_link_with_tip_mass_and_rotary_inertia_equals_the_exact_beam():
    """Link 2 of arm-yu2019 with its motor shaft held (B^T q locked), a tip mass of
    0.343 kg and a tip rotary inertia of 1e-3 kg m^2 (r = 1.18, j = 0.018), no gravity.

    * cantilever_frequencies (its closed-form characteristic equation) equals the roots
      of the 2 x 2 boundary determinant written above (1e-10: root-finding tolerance),
      and r = 1, j = 0 gives Blevins' first root 1.24792 (Table 8-1).
    * The assumed-modes model with the clamped-free basis converges to it from above
      (Rayleigh-Ritz). The modes have no curvature at the tip, where the rotary inertia
      bends the exact mode (E I y'' = J omega^2 y'), so it converges slowly, as 1/s:
      measured errors 4.6e-5 and 2.3e-2 at s = 12, 1.5e-5 and 1.1e-2 at s = 24 on the
      first two frequencies. Asserted: the first within 2e-5 at s = 24, monotone; the
      second halves from 12 to 24 modes (ratio 0.49 measured, 0.45-0.55 asserted), and
      its Richardson extrapolation 2 w(24) - w(12) is within 5e-4 of the exact value
      (2.5e-4 measured). (With the tip mass alone: 3.5e-6 on the first at s = 16.)
    * Without the rotary inertia the frequencies are higher (1.4 % and 41 %).
    * The hub inertia turns with the clamped root: it changes nothing (round-off)."""
    from elastodyn.formulations.amm.simulation import cantilever_frequencies, clamped_link_frequencies
    lk = arm_yu2019().links[1]
    M, J = 0.343, 1e-3
    r, j = M / lk.mass, J / (lk.mass * lk.length ** 2)
    scale = np.sqrt(lk.E * lk.I / (lk.mass * lk.length ** 3))
    exact = _tip_body_roots(r, j, 3) ** 2 * scale
    np.testing.assert_allclose(cantilever_frequencies(lk, 3, M, J), exact, rtol=1e-10)
    np.testing.assert_allclose(_tip_body_roots(1.0, 0.0, 1), [1.24792], atol=1e-5)
    w = {s: clamped_link_frequencies(lk, s, "clamped-free", M, J)[:2] for s in (6, 12, 24)}
    err = np.array([w[s] / exact[:2] - 1 for s in (6, 12, 24)])
    assert np.all(err > -1e-12)                                   # upper bounds
    assert np.all(np.diff(err[:, 0]) < 0) and err[-1, 0] < 2e-5
    assert 0.45 < err[2, 1] / err[1, 1] < 0.55
    assert abs((2 * w[24][1] - w[12][1]) / exact[1] - 1) < 5e-4
    no_J = cantilever_frequencies(lk, 2, M)
    assert np.all(no_J / exact[:2] - 1 > 0.01)
    hub = dataclasses.replace(lk, hub_inertia=5e-2)
    np.testing.assert_allclose(clamped_link_frequencies(hub, 6, "clamped-free", M, J)[:2],
                               w[6], rtol=1e-10)


# ------------------------------------------------------------------ Yu's arms unchanged
def test_operation_counts_of_yu_arms_are_the_benchmark_numbers():
    """The symbolic N-link arm of Yu's kind (one point mass per link, no rotary inertia,
    no payload) keeps its parameters (L, m, EI, M, mu per link, g) and the operation
    counts of BENCHMARKS.md (N = 1..3); an explicit zero rotary inertia, hub and a
    zero-inertia payload absent adds no parameter and no operation."""
    base = arm_yu2019()
    table = {1: (49, 114, 4), 2: (153, 280, 8), 3: (319, 505, 12)}
    for n, counts in table.items():
        arm = dataclasses.replace(base, links=(base.links[0],) * n)
        prog, sy = generate_amm(arm, symbolic=True)
        o = prog.ops()
        assert (o.additions, o.multiplications, o.functions) == counts
        assert sy.param_names == [f"{p}{i + 1}" for i in range(n)
                                  for p in ("L", "m", "EI", "M", "mu")] + ["g"]
    lk = base.links[0].with_lumped_masses(LumpedMass(2.94, 0.0, position=0.475))
    arm = dataclasses.replace(base, links=(lk, dataclasses.replace(lk, hub_inertia=0.0)))
    o1 = generate_amm(arm, symbolic=True)[0].ops()
    o2 = generate_amm(dataclasses.replace(base, links=(base.links[0],) * 2),
                      symbolic=True)[0].ops()
    assert o1 == o2
