"""Geometrically exact statics of corotational beam structures at any rotation
(:meth:`elastodyn.fem.corotational.BeamFrame.solve_static`, issue 31): the roll-up of a
cantilever under a tip moment (closed form: a circle), the elastica under a large tip
force and under heavy gravity (the independent shooting reference,
tests/references/reference_sagged_cantilever.py), objectivity (a rigid motion of a
deformed element changes no strain energy), and a buckled column named, not returned."""
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import reference_sagged_cantilever as ref
from elastodyn.exceptions import InputError, ModelError
from elastodyn.fem.corotational import CorotationalBeam, so3_exp
from test_corotational import L, cantilever, rod


def _tip(frame, st):
    """Tip position (3,) [m] and triad (3, 3) of a solved cantilever."""
    n = len(frame.x0) - 1
    return frame.x0[n] + st.displacement[n], st.triads[n]


def _ei():
    sec, mat = rod()
    return mat.E * sec.iy


@pytest.mark.parametrize("turns", [0.5, 1.0])
def test_roll_up_under_a_tip_moment(turns):
    """A tip moment M = 2 pi turns EI / L bends the cantilever into an arc of constant
    curvature M / EI: half a circle (turns 0.5, tip at 2 L / pi from the root, pointing
    back) and the whole circle (turns 1: the tip back at the root, its triad the
    clamp's). The elements' local rotations are exact (the rotation vector of E^T T, pi
    turns / n at each end): each element is a chord of the arc, of the undeformed
    length, so the nodes lie on a circle whose radius differs from L / (2 pi turns) at
    O(h^2). The half circle's tip is off by that (measured 0.262 L / n^2 at 8, 16 and 32
    elements: 4.0x per halving); the whole circle closes exactly whatever the circle
    (measured below 1e-15 L). (With the local rotations' sine, before, the whole turn
    was off by 0.13, 0.027 and 6.5e-3 L at 8, 16, 32 elements.)"""
    errs = []
    for n in (8, 16, 32):
        frame = cantilever(n, m_tip=0.0)
        M = 2 * math.pi * turns * _ei() / L
        # in the plane x-z: in space a moment about a fixed axis is not conservative and
        # buckles a round rod sideways long before a whole turn
        st = frame.solve_static(moments={n: (0.0, -M, 0.0)}, plane=(0.0, 1.0, 0.0))
        x, T = _tip(frame, st)
        if turns == 1.0:
            exact, exact_T = np.zeros(3), np.eye(3)
        else:   # the arc turns about -y: from +x up to +z
            exact = np.array([0.0, 0.0, 2 * L / math.pi])
            exact_T = np.diag([-1.0, 1.0, -1.0])
        errs.append(np.linalg.norm(x - exact))
        assert st.load_factor == 1.0
        if turns == 1.0:
            # round-off of the closed polygon (1e-15 L measured); the load is followed in
            # steps (a whole turn is not reached in one)
            assert errs[-1] < 1e-12 * L and len(st.steps) > 1
            np.testing.assert_allclose(T, exact_T, atol=1e-10)
        else:
            assert errs[-1] < 0.3 * L / n**2
            np.testing.assert_allclose(T, exact_T, atol=10 * errs[-1] / L)
    if turns == 0.5:
        assert errs[0] / errs[1] > 3.8 and errs[1] / errs[2] > 3.8, errs


@pytest.mark.parametrize("load", [3.0, 10.0])
def test_elastica_under_a_large_tip_force(load):
    """A dead tip force P = load EI / L^2 across the horizontal cantilever (tip slope
    ~52 and ~71 degrees) against the independent elastica (shooting, massless rod with
    the same tip load): tip deflection and abscissa within 0.15 L / n^2 at n = 16
    elements (the chords' O(h^2): the errors fall 4.0x per halving, 1.85e-3 L,
    4.5e-4 L, 1.1e-4 L at 8, 16, 32 elements for load 10; the axial stretch
    P/EA ~ 1e-7 is made smaller still with EA x 100)."""
    n = 16
    frame = cantilever(n, axial_scale=100.0, m_tip=0.0)
    P = load * _ei() / L**2
    st = frame.solve_static(forces={n: (0.0, 0.0, -P)})
    x, _ = _tip(frame, st)
    g = 9.81  # the reference's tip load is a tip mass under gravity: m g = P
    eq = ref.sagged_equilibrium(L, _ei(), 0.0, P / g, g)
    # O(h^2): measured 4.5e-4 L at 16 elements for load 10, 1.1e-4 L at 32 (with the
    # local rotations' sine, before: 1.44e-3 and 0.36e-3 L)
    assert abs(-x[2] - eq["tip_deflection"]) < 0.15 / n**2 * L
    assert abs(x[0] - eq["tip_x"]) < 0.15 / n**2 * L
    assert eq["tip_deflection"] > 0.4 * L      # far outside the linear range


def test_heavy_gravity_sag_is_the_elastica():
    """The rod with its tip mass under 60 g (tip sag ~0.45 L) against the reference's
    sagged shape with the same distributed and tip loads, at the tip and mid-span,
    within 2e-3 L at 16 elements (O(h^2)). (With the exact local rotations Newton
    reaches it in one load step, 9 iterations; the sine's softening needed several.)"""
    n, g = 16, 60 * 9.81
    frame = cantilever(n, axial_scale=100.0)
    st = frame.solve_static((0.0, 0.0, -g))
    sec, mat = rod()
    eq = ref.sagged_equilibrium(L, _ei(), mat.rho * sec.area, 0.3, g,
                                s_eval=[L / 2, L])
    for k, j in ((n // 2, 0), (n, 1)):
        xk = frame.x0[k] + st.displacement[k]
        assert abs(xk[0] - eq["x"][j]) < 2e-3 * L
        assert abs(xk[2] - eq["y"][j]) < 2e-3 * L
    assert eq["tip_deflection"] > 0.4 * L
    assert st.load_factor == 1.0


def test_small_loads_agree_with_the_total_rotation_solver():
    """Where the rotations stay small both solvers find the same equilibrium (the
    incremental one with updated triads, the total-rotation-vector one): to the Newton
    tolerance, 1e-10 m."""
    n = 8
    frame = cantilever(n)
    grav = np.array([0.0, 0.0, -9.81])
    q = frame.equilibrium(grav)
    st = frame.solve_static(grav)
    u = np.array([q[6 * (k - 1):6 * (k - 1) + 3] for k in range(1, n + 1)])
    np.testing.assert_allclose(st.displacement[1:], u, atol=1e-10)


def test_objectivity_of_the_strain_energy(rng):
    """A rigid rotation and translation of a deformed element changes its strain energy
    by round-off only (1e-10 of it), for rotations of any size."""
    sec, mat = rod()
    el = CorotationalBeam.of(0.1, sec, mat)
    chord0 = np.array([0.1, 0.0, 0.0])
    x0a, x0b = np.zeros(3), chord0
    ua, ub = 1e-3 * rng.standard_normal(3), 1e-3 * rng.standard_normal(3)
    ta = so3_exp(0.2 * rng.standard_normal(3))
    tb = so3_exp(0.2 * rng.standard_normal(3))
    U = float(el.strain_energy(ua, ta, ub, tb, chord0))
    assert U > 0
    for R in Rotation.random(5, random_state=7).as_matrix():
        c = rng.standard_normal(3)
        # the deformed positions moved rigidly, as displacements from the placement
        ua2 = R @ (x0a + ua) + c - x0a
        ub2 = R @ (x0b + ub) + c - x0b
        U2 = float(el.strain_energy(ua2, R @ ta, ub2, R @ tb, chord0))
        assert U2 == pytest.approx(U, rel=1e-10)


def test_a_buckled_column_is_named():
    """A vertical column under a compressive tip load twice Euler's (pi^2 EI / (4 L^2)):
    Newton finds the straight equilibrium, which is unstable beyond Euler's load; the
    result is a ModelError naming the load factor where it buckles (0.5, to the load
    steps' resolution and the discretization's 1e-4 on the Euler load), not that
    equilibrium."""
    n = 8
    frame = cantilever(n, theta0=math.pi / 2, m_tip=0.0)
    P = 2 * math.pi**2 * _ei() / (4 * L**2)
    with pytest.raises(ModelError, match="buckles at load factor 0.5"):
        frame.solve_static(forces={n: (0.0, 0.0, -P)})
    # below Euler's load the straight column is stable and returned
    st = frame.solve_static(forces={n: (0.0, 0.0, -0.5 * P / 2)})
    assert np.abs(st.displacement[:, 0]).max() < 1e-9


def test_bad_loads_name_the_node():
    frame = cantilever(4)
    with pytest.raises(InputError, match="forces node"):
        frame.solve_static(forces={0: (0.0, 0.0, 1.0)})     # the clamped node
    with pytest.raises(InputError, match=r"moments\[4\]"):
        frame.solve_static(moments={4: (0.0, float("nan"), 0.0)})
