"""Geometrically exact planar beam dynamics (:mod:`elastodyn.fem.planar_corotational`,
issue 31): the placement gives the linear element exactly, the strain energy is
objective, an undamped free motion conserves energy to the integrator's second order,
and a beam spun up about a hub beyond its first bending frequency stays bounded
(dynamic stiffening: Simo & Vu-Quoc's spin-up) where a linear model without the
stiffening has a negative stiffness and diverges."""
import math

import numpy as np
import pytest

from elastodyn.description.materials import Material, Section
from elastodyn.exceptions import InputError, ModelError
from elastodyn.fem.elements import BeamElement, mass_matrix, stiffness_matrix
from elastodyn.fem.planar_corotational import PlanarBeamStructure, PlanarCorotationalBeam

STEEL = Material(E=2e11, G=8e10, rho=7800.0)


def beam(n, L, section, material=STEEL, **kw):
    """A straight beam of n elements along x from the origin."""
    el = PlanarCorotationalBeam.of(L / n, section, material)
    nodes = np.c_[np.linspace(0.0, L, n + 1), np.zeros(n + 1)]
    return PlanarBeamStructure(nodes, [(k, k + 1, el) for k in range(n)], **kw)


def test_the_placement_is_the_linear_element():
    """At the placement (no deformation) the tangent stiffness and the mass matrix are
    the linear planar element's, assembled (to round-off: jets are exact)."""
    sec = Section.rectangle(0.02, 0.01)
    n, L = 4, 1.0
    s = beam(n, L, sec)
    _, g, K, M, h, C = s.evaluate(np.zeros(s.dof), np.zeros(s.dof))
    el = BeamElement(spatial=False, order="cubic")
    Kl, Ml = np.zeros_like(K), np.zeros_like(M)
    for k in range(n):
        c = np.arange(3 * k, 3 * k + 6)
        Kl[np.ix_(c, c)] += stiffness_matrix(el, L / n, sec, STEEL)
        Ml[np.ix_(c, c)] += mass_matrix(el, L / n, sec, STEEL)
    np.testing.assert_allclose(K, Kl, atol=1e-12 * np.abs(Kl).max())
    np.testing.assert_allclose(M, Ml, atol=1e-14 * np.abs(Ml).max())
    assert not np.any(g) and not np.any(h) and not np.any(C)


def test_objectivity(rng):
    """A rigid rotation (any angle, several turns included) and translation of a
    deformed structure leaves its strain energy (1e-12 relative: round-off) and its
    local deformations unchanged."""
    s = beam(3, 0.6, Section.rectangle(0.02, 0.01))
    q = 1e-3 * rng.standard_normal(s.dof)
    V, *_ = s.evaluate(q)
    loc = s.local_deformations(q)
    x = s.x0 + q.reshape(-1, 3)[:, :2]
    for angle in (0.3, -2.0, 7.5, 40.0):
        R = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        c = rng.standard_normal(2)
        q2 = q.reshape(-1, 3).copy()
        q2[:, :2] = x @ R.T + c - s.x0
        q2[:, 2] += angle
        V2, *_ = s.evaluate(q2.ravel())
        assert V2 == pytest.approx(V, rel=1e-12)
        np.testing.assert_allclose(s.local_deformations(q2.ravel()), loc, atol=1e-12)


def test_a_free_motion_conserves_energy_to_second_order():
    """A flexible pendulum (1 m steel strip, 20 x 2 mm, bending in its soft plane, 0.1 kg
    at the tip) pinned at the origin and released horizontal swings through half a turn
    in 1 s, bending as it goes. Undamped (rho_inf = 1) the total energy varies by the
    integrator's error only: 4x less at half the step (second order; measured 9.3e-5 J
    and 2.3e-5 J, 3.7e-5 and 0.9e-5 of the 2.5 J the motion converts)."""
    sec = Section.rectangle(0.002, 0.02)
    n = 4
    s = beam(n, 1.0, sec, gravity=(0.0, -9.81), masses=[(n, 0.1, 0.0)])
    drift = []
    for dt in (2e-3, 1e-3):
        run = s.simulate(1.0, dt, fixed=(0, 1), rho_inf=1.0)
        E = np.array([sum(s.energy(q, qd)) for q, qd in zip(run.q[::10], run.qd[::10])])
        drift.append(np.abs(E - E[0]).max())
        assert run.q[-1, 3 * n] < -1.9          # the tip swung over to the other side
    kinetic = max(s.energy(q, qd)[0] for q, qd in zip(run.q[::10], run.qd[::10]))
    assert drift[1] < 2e-5 * kinetic
    assert drift[0] / drift[1] > 3.5, drift


def _hub(ws, Ts):
    """Simo & Vu-Quoc's spin-up law: from rest to ws [rad/s] in Ts [s], then steady."""
    def law(t):
        if t < Ts:
            w = 2 * math.pi / Ts
            return (ws / Ts * (t * t / 2 + (math.cos(w * t) - 1) / (w * w)),
                    ws / Ts * (t - math.sin(w * t) / w), ws / Ts * (1 - math.cos(w * t)))
        return ws * (t - Ts / 2), ws, 0.0
    return law


def test_spin_up_stays_bounded_by_dynamic_stiffening():
    """J. C. Simo, L. Vu-Quoc, J. Appl. Mech. 53 (1986) 849-863, section 5.3: a 10 m beam
    (EA 2.8e7 N, EI 1.4e4 N m^2, rho A 1.2 kg/m) clamped to a hub spun up to 4 rad/s in
    15 s, above its first bending frequency (1.875^2 sqrt(EI / (rho A L^4)) = 3.80 rad/s,
    clamped-free).

    - A linear model without the stiffening of the centrifugal tension has, in the
      rotating frame, the stiffness K - w^2 M: negative at 4 rad/s, so it diverges.
    - The exact model stays bounded: the tip's transverse deflection in the hub frame
      peaks below 0.05 L during the spin-up and settles below 1e-3 L after it.
    - At steady spin the tip's radial stretch is the centrifugal one, rho A w^2 L^3 /
      (3 EA) = 2.29e-4 m (analytic; within 2 %: the axial vibration left).
    - The hub torque at the largest angular acceleration (t = Ts / 2) is the rigid
      beam's, rho A L^3 / 3 alpha, within 2 % (the deflection lags by 0.4 m of 10)."""
    L, EA, EI, rho_a, n = 10.0, 2.8e7, 1.4e4, 1.2, 4
    sec = Section(area=1.0, iy=EI / EA, iz=EI / EA, j=2 * EI / EA, ip=2 * EI / EA)
    mat = Material(E=EA, G=EA / 2.6, rho=rho_a)
    s = beam(n, L, sec, mat)
    ws, Ts = 4.0, 15.0
    _, _, K, M, _, _ = s.evaluate(np.zeros(s.dof))
    free = np.arange(3, s.dof)
    soft = K[np.ix_(free, free)] - ws**2 * M[np.ix_(free, free)]
    assert np.linalg.eigvalsh(soft)[0] < 0
    hub = _hub(ws, Ts)
    run = s.simulate(18.0, 0.025, fixed=(0, 1), prescribed={2: hub}, rho_inf=0.9)
    th = np.array([hub(t)[0] for t in run.t])
    tip = s.x0[n] + run.q[:, 3 * n:3 * n + 2]
    radial = np.cos(th) * tip[:, 0] + np.sin(th) * tip[:, 1]
    transverse = -np.sin(th) * tip[:, 0] + np.cos(th) * tip[:, 1]
    assert np.abs(transverse).max() < 0.05 * L
    after = run.t >= 16.0
    assert np.abs(transverse[after]).max() < 1e-3 * L
    stretch = rho_a * ws**2 * L**3 / (3 * EA)
    assert np.mean(radial[after] - L) == pytest.approx(stretch, rel=0.02)
    k = int(np.argmin(np.abs(run.t - Ts / 2)))
    rigid = rho_a * L**3 / 3 * hub(run.t[k])[2]
    assert run.reactions[k, 0] == pytest.approx(rigid, rel=0.02)


def test_bad_input_and_a_step_too_long():
    s = beam(2, 1.0, Section.rectangle(0.02, 0.01))
    with pytest.raises(InputError, match="fixed/prescribed"):
        s.simulate(0.1, 0.01, fixed=(99,))
    with pytest.raises(InputError, match="prescribed"):
        s.simulate(0.1, 0.01, fixed=(2,), prescribed={2: lambda t: (0.0, 0.0, 0.0)})
    with pytest.raises(InputError, match="length"):
        PlanarBeamStructure([[0, 0], [1, 0]], [(0, 1, PlanarCorotationalBeam.of(
            2.0, Section.rectangle(0.02, 0.01), STEEL))])
    # a step that Newton cannot follow is a ModelError naming the time and the step
    # (the stiff axial modes of the spin-up beam at 0.5 s: omega dt ~ 380)
    L, EA, EI = 10.0, 2.8e7, 1.4e4
    sec = Section(area=1.0, iy=EI / EA, iz=EI / EA, j=2 * EI / EA, ip=2 * EI / EA)
    s = beam(4, L, sec, Material(E=EA, G=EA / 2.6, rho=1.2))
    with pytest.raises(ModelError, match=r"t = .* s.*reduce the step"):
        s.simulate(20.0, 0.5, fixed=(0, 1), prescribed={2: _hub(4.0, 15.0)})


@pytest.mark.parametrize("turn", [0.3, 2.0, 3.0])
def test_a_section_turned_from_its_chord_stores_its_bending_energy(turn):
    """One element, its end section turned by ``turn`` from the chord (both nodes in
    place): the local rotation is the turn itself, up to pi (not its value modulo pi:
    a section flipped by pi stored no energy, and a soft arm settled with a link
    standing upside down), and the energy is the linear element's
    k_bb turn^2 / 2 = 4 EI / l turn^2 / 2 for that end rotation alone."""
    sec = Section.rectangle(0.02, 0.01)
    s = beam(1, 1.0, sec)
    q = np.zeros(s.dof)
    q[5] = turn
    (u, ta, tb), = s.local_deformations(q)
    assert tb == pytest.approx(turn, rel=1e-12) and ta == 0.0
    V = s.evaluate(q)[0]
    EI = STEEL.E * sec.iz
    assert V == pytest.approx(0.5 * 4 * EI * turn**2, rel=1e-12)
