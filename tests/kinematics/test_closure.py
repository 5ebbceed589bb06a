"""The shared loop-closure Newton (:func:`elastodyn.kinematics.closure.close_loops`,
issue 30 item 5) on closures solved in closed form: a four-bar linkage (square: the
coupler and rocker angles of a crank angle, by the intersection of two circles) and the
projection of a point onto a circle (minimum norm: the nearest point). Its users are
covered by their own tests (tests/formulations/nepvp/test_nepvp_closure.py,
tests/formulations/ffrf/test_ffrf_multibody.py, tests/formulations/ffrf/test_ffrf_kernel.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from elastodyn.exceptions import ModelError
from elastodyn.kinematics.closure import ClosureError, close_loops

# a Grashof crank-rocker [m]: ground d, crank a, coupler b, rocker c (s + l < p + q:
# 0.2 + 0.7 < 0.5 + 0.6); the crank turns fully
D_, A_, B_, C_ = 0.7, 0.2, 0.5, 0.6


def _four_bar(phi, b=B_):
    """Residual of the loop (crank angle phi fixed) in (theta, psi): coupler angle and
    rocker angle, a e^{i phi} + b e^{i theta} - d - c e^{i psi} = 0, and its Jacobian."""
    def residual(x):
        th, ps = x
        r = np.array([A_ * np.cos(phi) + b * np.cos(th) - D_ - C_ * np.cos(ps),
                      A_ * np.sin(phi) + b * np.sin(th) - C_ * np.sin(ps)])
        J = np.array([[-b * np.sin(th), C_ * np.sin(ps)],
                      [b * np.cos(th), -C_ * np.cos(ps)]])
        return r, J
    return residual


def _four_bar_exact(phi, b=B_):
    """The same by the intersection of the circle of radius b about the crank pin with
    the circle of radius c about the rocker pivot (the branch with the rocker pin
    above the line from the crank pin to the pivot)."""
    P = np.array([A_ * np.cos(phi), A_ * np.sin(phi)])
    O = np.array([D_, 0.0])
    L = np.linalg.norm(O - P)
    u = (O - P) / L
    s = (b * b - C_ * C_ + L * L) / (2 * L)           # along u from P
    h = math.sqrt(b * b - s * s)
    X = P + s * u + h * np.array([-u[1], u[0]])     # the rocker pin
    return np.array([math.atan2(*(X - P)[::-1]), math.atan2(*(X - O)[::-1])])


@pytest.mark.parametrize("phi", [0.0, 0.7, 2.0, 3.5, 5.5])
def test_four_bar_closes_to_the_circle_intersection(phi):
    """From the solution at a crank angle 0.3 rad away (a continuation step), Newton
    reaches the closed-form angles to 1e-12 rad (tolerance 1e-12 m on the residual, a
    well-conditioned Jacobian: |J^-1| ~ 1/(b c sin(transmission angle)) ~ 5; measured
    3e-16) in a few quadratically converging steps (measured 4; asserted <= 6)."""
    start = _four_bar_exact(phi - 0.3)
    sol = close_loops(_four_bar(phi), start, what="a four-bar", tol=1e-12)
    exact = _four_bar_exact(phi)
    np.testing.assert_allclose(sol.x, exact, rtol=0, atol=1e-12)
    assert sol.residual < 1e-12 and 1 <= sol.iterations <= 6


def test_projection_onto_a_circle_is_the_nearest_point():
    """Minimum-norm steps on Phi(x) = |x|^2 - 1 (one equation, two unknowns) stay on the
    ray through the start (each step is -x Phi / (2 |x|^2)): the projection is
    x0 / |x0|, the nearest point of the circle, to the tolerance on Phi (1e-12) over
    |dPhi/dx| = 2 (measured 1.7e-13)."""
    def residual(x):
        return np.array([x @ x - 1.0]), 2.0 * x[None, :]
    x0 = np.array([1.3, -0.4])
    sol = close_loops(residual, x0, what="a point on the unit circle", minimum_norm=True)
    np.testing.assert_allclose(sol.x, x0 / np.linalg.norm(x0), rtol=0, atol=5e-13)


def test_complex_step_through_the_closure():
    """A complex step on the coupler length b (b + i h, h = 1e-30) from the real
    solution, whose real part already closes: Newton still takes a step (the imaginary
    residual is not zero), and Im x / h is d(theta, psi)/db of the closed form (central
    differences with step 1e-6: error ~1e-10, measured 7e-11, asserted 1e-8)."""
    phi, h = 1.1, 1e-30
    start = _four_bar_exact(phi).astype(complex)
    sol = close_loops(_four_bar(phi, B_ + 1j * h), start, what="a four-bar")
    assert sol.iterations >= 1
    fd = (_four_bar_exact(phi, B_ + 1e-6) - _four_bar_exact(phi, B_ - 1e-6)) / 2e-6
    np.testing.assert_allclose(sol.x.imag / h, fd, rtol=0, atol=1e-8)


def test_failures_name_what_the_residual_and_the_iterations():
    """No assembly (a crank pin farther than b + c from the rocker pivot: a coupler of
    0.05 m) fails after the cap with the last residual; a singular Jacobian (the rocker
    pin on the line of centres, theta = psi = 0: both columns vertical) is reported as
    such; both are ModelErrors."""
    with pytest.raises(ClosureError) as info:
        close_loops(_four_bar(0.0, b=0.05), [0.5, 1.0], what="a short four-bar",
                    max_iter=25)
    e = info.value
    assert isinstance(e, ModelError)
    assert e.what == "a short four-bar" and e.iterations == 25 and e.residual > 0.1
    assert "a short four-bar" in str(e) and "25 Newton iterations" in str(e)
    with pytest.raises(ClosureError, match="singular") as info:
        close_loops(_four_bar(0.0), [0.0, 0.0], what="a folded four-bar", hint="check it")
    assert info.value.iterations == 0 and str(info.value).endswith("; check it")
