"""The independent sagged-cantilever reference (tests/references/reference_sagged_cantilever.py)
checked against closed forms and against its own second method, before it serves as the
reference of the deflected-reference KED (issue 15)."""
import numpy as np
import pytest

import reference_sagged_cantilever as ref

P = ref.example_parameters()
L, EI, MU, M = P["L"], P["EI"], P["mu"], P["m_tip"]


@pytest.mark.parametrize("g, theta0", [(0.0, 0.0), (1e-6, 0.0), (0.0, 0.7)])
def test_straight_limit_is_the_closed_form(g, theta0):
    """g -> 0 (and a rigidly rotated clamp) gives the roots of the cantilever-with-tip-
    mass frequency equation; collocation at degree 48: 1e-10 (measured 4e-11)."""
    f = ref.sagged_frequencies(L, EI, MU, M, g, theta0=theta0)
    np.testing.assert_allclose(f, ref.closed_form_frequencies(L, EI, MU, M, 4), rtol=1e-9)


def test_small_sag_is_linear_theory_to_second_order():
    """Tip deflection against w L^4 / (8 EI) + P L^3 / (3 EI): the error is of order
    (delta / L)^2 (its ratio between g and g/2 is 4)."""
    e = []
    for g in (0.04, 0.02):
        lin = MU * g * L ** 4 / (8 * EI) + M * g * L ** 3 / (3 * EI)
        d = ref.sagged_equilibrium(L, EI, MU, M, g)["tip_deflection"]
        e.append(abs(d / lin - 1))
        assert 0.05 < e[-1] / (lin / L) ** 2 < 2.0
    assert e[0] / e[1] == pytest.approx(4.0, rel=0.02)


def test_hanging_massless_rod_with_tip_mass_is_exact():
    """Hanging clamp, massless rod, tip mass m: omega^2 = g / (L - tanh(kL) / k),
    k = sqrt(m g / EI) (the prestress and the kinematics of the sagged state)."""
    g = 9.81
    k = np.sqrt(M * g / EI)
    exact = np.sqrt(g / (L - np.tanh(k * L) / k)) / (2 * np.pi)
    f = ref.sagged_frequencies(L, EI, 0.0, M, g, theta0=-np.pi / 2, count=1)[0]
    assert f == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("theta0, J", [(0.0, 0.0), (np.pi / 6, 1e-3)])
def test_collocation_against_shooting(theta0, J):
    """Two methods on the same linearized equations: Chebyshev collocation and shooting
    on the frequency (DOP853 at 1e-13): 1e-9 (measured 3e-11)."""
    fc = ref.sagged_frequencies(L, EI, MU, M, 9.81, J_tip=J, theta0=theta0)
    fs = np.array([ref.shooting_frequency(L, EI, MU, M, 9.81, f, J, theta0) for f in fc])
    np.testing.assert_allclose(fs, fc, rtol=1e-9)


@pytest.mark.parametrize("theta0, g, expect", [(0.0, 9.81, 4.0), (-np.pi / 2, 0.2, 2.0)])
def test_frequency_shift_scaling_with_gravity(theta0, g, expect):
    """The shift of the frequencies from the straight beam, shift(g) / shift(g / 2): 4
    for a horizontal clamp (even in g), 2 for a hanging one (linear prestress)."""
    f0 = ref.sagged_frequencies(L, EI, MU, M, 0.0, theta0=theta0)
    r = (ref.sagged_frequencies(L, EI, MU, M, g, theta0=theta0) - f0) / (
        ref.sagged_frequencies(L, EI, MU, M, g / 2, theta0=theta0) - f0)
    np.testing.assert_allclose(r, expect, rtol=0.02)


def test_resolution():
    fa = ref.sagged_frequencies(L, EI, MU, M, 9.81, N=40)
    fb = ref.sagged_frequencies(L, EI, MU, M, 9.81, N=64)
    np.testing.assert_allclose(fa, fb, rtol=1e-8)
