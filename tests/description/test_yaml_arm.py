"""A planar arm with every kind of body, described only in YAML: several lumped masses
with rotary inertias per link (placed by their distance from the joint, by Yu's mu and
by default at the end), a hub inertia per joint, a payload with a rotary inertia, a link
given by its section and material. Checked through the model contract:

* the description reaches the arm dataclass whole (every body, as placed);
* the assumed-modes model (Yu & Chen 2019) and the NE-PVP model of the same file
  (Briot & Khalil 2013: the arm as a one-leg tree, ``arm_as_tree``) are equal entry by
  entry (M, c, pose) with the same assumed modes, in both bases;
* each model's rigid part against a hand derivation: the inertia of the straight arm
  about each joint and the gravity torques at rest (every body counted once, at its
  place), for the assumed-modes, NE-PVP assumed-modes and NE-PVP finite-element models;
* the joint friction of the geared motors, r^2 kv w + r kc sign(w) on the motor shaft
  rate, acting on the actuated coordinate only.
"""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.description.arm import LumpedMass
from elastodyn.description.convert import planar_arm
from elastodyn.description.files import apply_sets, load_description
from elastodyn.formulations.registry import build_model

G = 9.81

ARM_YAML = """\
family: arm
name: arm-with-every-body
gravity: 9.81
links:
  - length: 0.5
    mass: 0.4
    E: 2.0e+11
    I: 1.0e-10
    hub_inertia: 3.0e-3
    lumped_masses:
      - {mass: 0.8, inertia: 4.0e-3, position: 0.15}
      - {mass: 1.2, inertia: 6.0e-3, mu: -0.2}
      - {mass: 0.5, inertia: 2.0e-3}
  - length: 0.4
    mass: 0.3
    E: 7.0e+10
    I: 2.0e-10
    hub_inertia: 1.5e-3
    lumped_masses:
      - {mass: 0.3, inertia: 1.0e-3, position: 0.1}
      - {mass: 0.6, inertia: 3.0e-3, position: 0.3}
  - length: 0.3
    section: {shape: rectangle, width: 0.004, height: 0.02}
    material: {E: 7.0e+10, G: 2.6e+10, rho: 2700}
    hub_inertia: 1.0e-3
    lumped_masses:
      - {mass: 0.2, inertia: 5.0e-4, mu: -0.5}
      - {mass: 0.1, inertia: 2.0e-4, position: 0.0}
payload: {mass: 0.7, inertia: 5.0e-3}
"""

FRICTION = ["links.0.gear_ratio=50", "links.0.viscous=0.004", "links.0.coulomb=0.01",
            "links.1.gear_ratio=20", "links.1.viscous=0.002", "links.1.coulomb=0.02"]



@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    f = tmp_path_factory.mktemp("arm") / "arm.yaml"
    f.write_text(ARM_YAML)
    return load_description(f)


def _bodies(spec):
    """Independent list of the arm's rigid bodies and link rods from the YAML numbers:
    (link index, x of the body along the straight arm [m], mass, rotary inertia) and the
    rods (link index, start, length, mass)."""
    lengths = [0.5, 0.4, 0.3]
    starts = np.concatenate([[0.0], np.cumsum(lengths)])
    m3 = 2700 * 0.004 * 0.02 * 0.3
    rods = [(0, 0.0, 0.5, 0.4), (1, 0.5, 0.4, 0.3), (2, 0.9, 0.3, m3)]
    pts = [(0, 0.0, 0.0, 3.0e-3), (0, 0.15, 0.8, 4.0e-3), (0, 0.5 * 0.8, 1.2, 6.0e-3),
           (0, 0.5, 0.5, 2.0e-3),
           (1, starts[1], 0.0, 1.5e-3), (1, starts[1] + 0.1, 0.3, 1.0e-3),
           (1, starts[1] + 0.3, 0.6, 3.0e-3),
           (2, starts[2], 0.0, 1.0e-3), (2, starts[2] + 0.15, 0.2, 5.0e-4),
           (2, starts[2], 0.1, 2.0e-4),
           (2, starts[3], 0.7, 5.0e-3)]                      # the payload at the tip
    return starts, rods, pts


def test_the_description_reaches_the_arm_whole(spec):
    """Every body of the file, as placed, in the PlanarArm the formulations take."""
    arm = planar_arm(spec)
    l0, l1, l2 = arm.links
    assert l0.lumped_masses == (LumpedMass(0.8, 4e-3, position=0.15),
                                LumpedMass(1.2, 6e-3, mu=-0.2), LumpedMass(0.5, 2e-3))
    assert l1.lumped_masses == (LumpedMass(0.3, 1e-3, position=0.1),
                                LumpedMass(0.6, 3e-3, position=0.3))
    assert l2.lumped_masses == (LumpedMass(0.2, 5e-4, mu=-0.5),
                                LumpedMass(0.1, 2e-4, position=0.0))
    assert (l0.hub_inertia, l1.hub_inertia, l2.hub_inertia) == (3e-3, 1.5e-3, 1e-3)
    assert arm.payload == LumpedMass(0.7, 5e-3)
    # the section link: E, I_z = b h^3 / 12 with b the width (in the plane), rho A L
    assert l2.E == 7e10 and abs(l2.I / (0.02 * 0.004**3 / 12) - 1) < 1e-15
    assert abs(l2.mass / (2700 * 0.004 * 0.02 * 0.3) - 1) < 1e-15
    np.testing.assert_allclose(l0.mus, [0.15 / 0.5 - 1, -0.2, 0.0], rtol=0, atol=1e-16)


def _state_pairs(models, rng, n=3, s=2):
    q = np.concatenate([rng.uniform(-2, 2, n), rng.normal(scale=5e-3, size=n * s)])
    v = rng.normal(size=n + n * s) * np.r_[[1.0] * n, [0.05] * (n * s)]
    kw = dict(actuated=q[:n], elastic=q[n:], rates=v[:n], elastic_rates=v[n:])
    return [m.state(**kw) for m in models]


@pytest.mark.parametrize("basis", ["sine", "clamped-free"])
def test_nepvp_equals_assumed_modes_with_every_body(spec, basis):
    """Same file, two formulations, the contract's coordinates (motor shaft angles,
    modal amplitudes), no change of variables in the test: M, c and the tip position
    equal to round-off at random states (asserted 1e-10 of each one's largest entry;
    measured below 1e-15). The two models are derived independently (Lagrange on the
    generated energies; recursive Newton-Euler with the bodies on frames carried by the
    beams), so this checks where each body sits and how it turns (chord angle plus the
    slope at its place, the hub with the root section, the payload at the tip)."""
    amm = build_model(spec, "amm", modes=2, basis=basis)
    nep = build_model(spec, "nepvp", modes=2, basis=basis)
    assert amm.coordinates.n == nep.coordinates.n == 9
    rng = np.random.default_rng(11)
    for _ in range(3):
        sa, sb = _state_pairs((amm, nep), rng)
        Ma, Mb = amm.mass_matrix(sa), nep.mass_matrix(sb)
        np.testing.assert_allclose(Mb, Ma, rtol=0, atol=1e-10 * np.abs(Ma).max())
        ca, cb = amm.bias(sa), nep.bias(sb)
        np.testing.assert_allclose(cb, ca, rtol=0, atol=1e-10 * np.abs(ca).max())
        np.testing.assert_allclose(sb.pose, sa.pose, rtol=0, atol=1e-12)


@pytest.mark.parametrize("formulation, options", [
    ("amm", {"modes": 2, "basis": "sine"}),
    ("amm", {"modes": 3, "basis": "clamped-free"}),
    ("nepvp", {"modes": 2, "basis": "clamped-free"}),
    ("nepvp", {"elements": 2}),
])
def test_rigid_inertia_and_gravity_torques_of_the_straight_arm(spec, formulation,
                                                              options):
    """The straight, undeformed arm along x0 (shaft angles and elastic coordinates zero),
    at rest. Turning joint j with the elastic coordinates held turns everything beyond
    it rigidly, so M_jj is the moment of inertia about joint j of the rods (m ((b - a_j)^3
    - (s - a_j)^3) / 3L for a rod on [s, b]), the point masses (m r^2 + J), the hubs
    beyond (J; the hub of joint j itself too) and the payload; and c_j at rest is the
    gravity torque g sum m (x - a_j) of what lies beyond (gravity along -y0). Written
    from the YAML numbers alone. Round-off: 1e-12 relative (measured 4e-16)."""
    m = build_model(spec, formulation, **options)
    st = m.state(actuated=np.zeros(3))
    M, c = m.mass_matrix(st), m.bias(st)
    starts, rods, pts = _bodies(spec)
    for j in range(3):
        a = starts[j]
        inertia = sum(mr * ((s0 + Lr - a) ** 3 - (s0 - a) ** 3) / (3 * Lr)
                      for i, s0, Lr, mr in rods if i >= j)
        inertia += sum(mp * (x - a) ** 2 + J for i, x, mp, J in pts if i >= j)
        torque = G * (sum(mr * (s0 + Lr / 2 - a) for i, s0, Lr, mr in rods if i >= j)
                      + sum(mp * (x - a) for i, x, mp, _ in pts if i >= j))
        assert abs(M[j, j] / inertia - 1) < 1e-12, (j, M[j, j], inertia)
        assert abs(c[j] / torque - 1) < 1e-12, (j, c[j], torque)


def _friction_law(w):
    """r^2 kv w + r kc sign(w) at the joint (motor-side kv, kc; gear ratio r)."""
    law = [(50.0, 0.004, 0.01), (20.0, 0.002, 0.02), (1.0, 0.0, 0.0)]
    return np.array([r * r * kv * x + r * kc * np.sign(x) for (r, kv, kc), x in zip(law, w)])


def _friction_of(spec, formulation, options, rng):
    """(c with friction - c without) at a random moving, deformed state, and the
    shaft rates."""
    rough = apply_sets(spec, FRICTION)
    a = build_model(rough, formulation, **options)
    b = build_model(spec, formulation, **options)
    sa, sb = _state_pairs((a, b), rng, s=a.coordinates.n_elastic // 3)
    return a.bias(sa) - b.bias(sb), sa.actuated_rates


@pytest.mark.parametrize("formulation, options", [
    ("amm", {"modes": 2, "basis": "sine"}),
    ("nepvp", {"elements": 2}),
    ("nepvp", {"modes": 2, "basis": "sine"}),
])
def test_motor_friction_acts_on_the_shaft_rate_and_coordinate(spec, formulation, options):
    """The geared motors' friction (docs/theory/amm.rst: r kc sign + r^2 kv at the joint) is a torque
    between the same bodies as the motor's: in the contract's coordinates it is
    [f(shaft rates); 0], whatever the deformation. The difference of c with and without
    friction, against the law written here (round-off: 1e-12 of the largest term;
    measured 1e-16; NE-PVP with assumed-mode beams: 4.1 times the largest term)."""
    rng = np.random.default_rng(3)
    dc, w = _friction_of(spec, formulation, options, rng)
    ref = np.concatenate([_friction_law(w), np.zeros(len(dc) - 3)])
    np.testing.assert_allclose(dc, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
