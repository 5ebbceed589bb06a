"""The model contract (elastodyn.model), over every (robot, formulation) pair that applies.

Each check is independent of the code path it checks:

* M symmetric positive definite (Cholesky);
* inverse then direct dynamics returns the motion (for NE-PVP the generated inverse and
  direct programs of Briot & Khalil IV-D, which do not go through M and c);
* the power balance of a conservative model (friction off): the velocity forces do no
  work beyond the kinetic energy's change, v . (c(q, v) - c(q, 0)) = 1/2 v^T (dM/dt) v,
  with dM/dt from finite differences of M along v, and the static forces c(q, 0) have a
  symmetric Jacobian (they derive from a potential). Together: d(T + V)/dt = v . tau in
  free motion, energy is conserved;
* the linearization reproduces the nonlinear response: a small elastic perturbation of
  the static equilibrium, integrated by the nonlinear model (its inverse dynamics) and by
  the linearized one (matrix exponential), agree to second order in the amplitude;
* the NE-PVP model of a planar arm equals the assumed-modes model entry by entry through
  the contract (no adapter: both use the motor shaft angles as actuated coordinates).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model, formulations_for
from elastodyn.model import Coordinates, State



def _frictionless_arm():
    sets = [f"links.{i}.{k}=0" for i in (0, 1) for k in ("coulomb", "viscous")]
    return load_description("arm-yu2019", sets)


CASES = {
    "asadi-explicit": (lambda: load_description("delta-asadi2020"), "explicit", {}),
    "asadi-multipliers": (lambda: load_description("delta-asadi2020"), "multipliers", {}),
    "kuo-explicit": (lambda: load_description("delta-kuo2016"), "explicit", {}),
    "fivebar-nepvp": (lambda: load_description("prrrp-briot2013"), "nepvp", {}),
    "arm-amm": (_frictionless_arm, "amm", {}),
    "arm-nepvp-modes": (_frictionless_arm, "nepvp", {"modes": 2, "basis": "sine"}),
    "arm-nepvp-fe": (_frictionless_arm, "nepvp", {"elements": 2}),
}

_models: dict = {}


def model(case):
    if case not in _models:
        spec, form, opts = CASES[case]
        _models[case] = build_model(spec(), form, **opts)
    return _models[case]


def random_state(m, rng, *, deflection=2e-3):
    """A closed state with random actuated positions near home, rates, accelerations,
    and small elastic coordinates (within the small-deformation range)."""
    na, ne = m.coordinates.n_actuated, m.coordinates.n_elastic
    if m.formulation in ("explicit", "multipliers"):
        pose = np.array([0.03, -0.02, 0.0]) + rng.uniform(-0.03, 0.03, 3)
        pose[2] += 0.45 if m.robot.name == "delta-asadi2020" else 0.55
        st = m.state(pose=pose)
        qa = st.actuated
    else:
        qa = m.state().actuated + rng.uniform(-0.1, 0.1, na)
    return m.state(actuated=qa, rates=rng.normal(size=na),
                   accelerations=rng.normal(size=na),
                   elastic=rng.normal(scale=deflection, size=ne),
                   elastic_rates=rng.normal(scale=0.05, size=ne))


@pytest.mark.parametrize("case", list(CASES))
def test_mass_matrix_is_symmetric_positive_definite(case):
    m = model(case)
    rng = np.random.default_rng(1)
    for _ in range(3):
        M = m.mass_matrix(random_state(m, rng))
        # symmetric to round-off of its assembly (1e-12 of its largest entry)
        assert np.abs(M - M.T).max() <= 1e-12 * np.abs(M).max()
        np.linalg.cholesky(0.5 * (M + M.T))      # raises unless positive definite


@pytest.mark.parametrize("case", list(CASES))
def test_inverse_then_direct_dynamics_returns_the_motion(case):
    """tau from the inverse problem, then the direct problem at tau gives back the
    actuated accelerations and the inverse problem's elastic accelerations (round-off of
    two solves: 1e-8 of the accelerations' scale, M's condition number ~1e4)."""
    m = model(case)
    rng = np.random.default_rng(2)
    for _ in range(3):
        st = random_state(m, rng)
        eff = m.inverse_dynamics(st)
        acc = m.direct_dynamics(st, eff.tau)
        na = m.coordinates.n_actuated
        scale = max(1.0, np.abs(acc).max())
        np.testing.assert_allclose(acc[:na], st.actuated_accelerations, rtol=0,
                                   atol=1e-8 * scale)
        np.testing.assert_allclose(acc[na:], eff.elastic_accelerations, rtol=0,
                                   atol=1e-8 * scale)
        # and both satisfy the equations of motion M qdd + c = [tau; 0]
        r = m.mass_matrix(st) @ acc + m.bias(st)
        r[:na] -= eff.tau
        assert np.abs(r).max() <= 1e-8 * max(1.0, np.abs(m.bias(st)).max())


@pytest.mark.parametrize("case", list(CASES))
def test_power_balance_of_the_conservative_model(case):
    """v . (c(q, v) - c(q, 0)) = 1/2 v^T (dM/dt) v and d c(q, 0)/dq symmetric (module
    docstring). dM/dt by central differences along v (step 1e-6: truncation 1e-12,
    round-off 1e-10 of |M|); the tolerances below are 1e-6 of the terms' scale."""
    m = model(case)
    rng = np.random.default_rng(3)
    st = random_state(m, rng)
    v = st.v
    h = 1e-6
    Mp = m.mass_matrix(m.at(st, q=st.q + h * v))
    Mm = m.mass_matrix(m.at(st, q=st.q - h * v))
    Mdot = (Mp - Mm) / (2 * h)
    c_v = m.bias(st)
    c_0 = m.bias(m.at(st, v=np.zeros_like(v)))
    lhs = v @ (c_v - c_0)
    rhs = 0.5 * v @ Mdot @ v
    assert abs(lhs - rhs) <= 1e-6 * max(abs(lhs), abs(rhs), 1e-12)
    # static forces: symmetric Jacobian (finite differences, step 1e-6)
    n = m.coordinates.n
    rest = m.at(st, v=np.zeros(n), a=np.zeros(n))
    J = np.empty((n, n))
    for j in range(n):
        d = np.zeros(n)
        d[j] = h
        J[:, j] = (m.bias(m.at(rest, q=rest.q + d)) - m.bias(m.at(rest, q=rest.q - d))) / (2 * h)
    assert np.abs(J - J.T).max() <= 1e-6 * np.abs(J).max()


@pytest.mark.parametrize("case", ["fivebar-nepvp", "arm-amm", "arm-nepvp-modes",
                                  "arm-nepvp-fe"])
def test_linearization_reproduces_the_small_nonlinear_response(case):
    """About the static equilibrium with the actuators locked: a perturbation e0 of
    amplitude a of the elastic coordinates (released from rest) evolves by the nonlinear
    model (its inverse dynamics: the elastic accelerations, integrated by DOP853 at rtol
    1e-10) as x(t) = expm(A t) x0 of the linearization, up to O(a^2): halving a halves the
    relative difference (checked), and it stays below 5e-3 at a = 1e-6 m."""
    from scipy.integrate import solve_ivp
    m = model(case)
    eq = m.static_deflection(m.state())
    lin = m.linearize(eq, preload=True)
    ne = lin.n
    Minv = np.linalg.inv(lin.M)
    A = np.block([[np.zeros((ne, ne)), np.eye(ne)], [-Minv @ lin.K, -Minv @ lin.C]])
    rng = np.random.default_rng(4)
    direction = rng.normal(size=ne)
    direction /= np.abs(direction).max()
    w_max = np.sqrt(np.abs(np.linalg.eigvals(Minv @ lin.K)).max())
    T = 3.0 * 2 * np.pi / np.sqrt(np.abs(np.linalg.eigvals(Minv @ lin.K)).min())
    T = min(T, 200.0 / w_max)

    def rel(a):
        x0 = np.concatenate([a * direction, np.zeros(ne)])
        qa = eq.actuated

        def rhs(t, x):
            st = m.at(eq, q=np.concatenate([qa, eq.elastic + x[:ne]]),
                      v=np.concatenate([np.zeros(len(qa)), x[ne:]]),
                      a=np.zeros(len(eq.q)))
            return np.concatenate([x[ne:], m.inverse_dynamics(st).elastic_accelerations])
        sol = solve_ivp(rhs, (0, T), x0, method="DOP853", rtol=1e-10, atol=1e-16 * a)
        xl = sla.expm(A * T) @ x0
        return np.abs(sol.y[:ne, -1] - xl[:ne]).max() / np.abs(xl[:ne]).max()

    r1, r2 = rel(2e-6), rel(1e-6)
    assert r2 < 5e-3
    assert r2 < 0.7 * r1 or r2 < 1e-6  # second order: the difference halves with a


def test_nepvp_arm_equals_the_assumed_modes_arm_through_the_contract():
    """Same description, two formulations, the contract's coordinates (shaft angles,
    modal amplitudes): M and c equal to round-off (1e-10 of their scale) at random
    states, without any change of variables in the test."""
    amm, nep = model("arm-amm"), model("arm-nepvp-modes")
    assert amm.coordinates.n == nep.coordinates.n
    rng = np.random.default_rng(5)
    for _ in range(4):
        q = np.concatenate([rng.uniform(-2, 2, 2), rng.normal(scale=5e-3, size=4)])
        v = rng.normal(size=6) * np.r_[1, 1, 0.05, 0.05, 0.05, 0.05]
        kw = dict(actuated=q[:2], elastic=q[2:], rates=v[:2], elastic_rates=v[2:])
        sa, sb = amm.state(**kw), nep.state(**kw)
        Ma, Mb = amm.mass_matrix(sa), nep.mass_matrix(sb)
        np.testing.assert_allclose(Mb, Ma, rtol=0, atol=1e-10 * np.abs(Ma).max())
        ca, cb = amm.bias(sa), nep.bias(sb)
        np.testing.assert_allclose(cb, ca, rtol=0, atol=1e-10 * np.abs(ca).max())
        np.testing.assert_allclose(sb.pose, sa.pose, rtol=0, atol=1e-12)


def test_ked_linearization_is_the_ked_system_and_its_static_deflection():
    """KED answers the linear part of the contract: at rest, M symmetric positive
    definite, K symmetric (no motion: no gyroscopic or skew terms), and the static
    deflection solves K e = F (round-off)."""
    m = build_model(load_description("delta-kuo2016"))
    assert m.formulation == "ked"
    st = m.state(pose=[0.1, 0.0, 0.5])
    lin = m.linearize(st)
    np.linalg.cholesky(lin.M)
    assert np.abs(lin.K - lin.K.T).max() <= 1e-9 * np.abs(lin.K).max()
    sd = m.static_deflection(st)
    assert np.abs(lin.K @ sd.elastic - lin.F).max() <= 1e-9 * np.abs(lin.F).max()
    # the platform sags along +Z (Z down) under gravity: 25.7 mm (docs/cli/simulate.rst, Kuo preset)
    assert 0.02 < sd.elastic[2] < 0.03


def test_capabilities_and_refusals():
    """Every pair answers what it declares; an analysis asking for more is refused
    with one line naming the capability."""
    from elastodyn.analysis.modes import modes
    from elastodyn.exceptions import InputError
    rigid = model("asadi-explicit")
    with pytest.raises(InputError, match="linearize|elastic"):
        modes(rigid, rigid.state(pose=[0, 0, 0.45]))
    ked = build_model(load_description("delta-kuo2016"))
    assert "mass_matrix" not in ked.capabilities
    assert formulations_for(load_description("delta-kuo2016"))[0] == "ked"
    assert formulations_for(load_description("delta-asadi2020")) == ["explicit", "multipliers"]
    assert formulations_for(load_description("arm-yu2019")) == ["amm", "nepvp", "exact"]
    with pytest.raises(InputError, match="--formulation"):
        build_model(load_description("delta-asadi2020"), "ked")
    with pytest.raises(InputError, match="--elements"):
        build_model(load_description("arm-yu2019"), "amm", elements=3)


def test_state_and_coordinates_validation():
    from elastodyn.exceptions import InputError, ModelError
    with pytest.raises(ModelError):
        Coordinates(("a", "b"), ("m", "m"), ("elastic", "actuated"))
    st = State.build(2, 1, actuated=[1, 2], elastic=[3])
    assert st.actuated.tolist() == [1, 2] and st.elastic.tolist() == [3]
    with pytest.raises(InputError, match="actuated"):
        State.build(2, 1, actuated=[1, 2, 3])
