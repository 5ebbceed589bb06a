"""Descriptions of a user's flexible Delta: link groups, platform and payload bodies, motors.

References independent of the code under test: a cloud of point masses (its kinetic
energy and the virtual work of its weights, summed point by point, against the rigid
body's 6 x 6 mass matrix and load at P), closed-form masses and inertias, and the KED
model of the Kuo robot (a description that only re-expresses it gives the same
matrices, bit for bit).
"""
from dataclasses import replace

import numpy as np
import pytest

from elastodyn.description.delta import Friction, delta_kuo2016
from elastodyn.description.flexible_delta import (FlexibleDelta, Payload, Platform,
                                                  flexible_delta_kuo2016)
from elastodyn.description.materials import STEEL, Material, Section
from elastodyn.exceptions import InputError
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.trajectories import InvertedU

ALU = Material(E=70e9, G=26e9, rho=2700.0)


def _cloud(rng, n=7):
    """Point masses (n,) [kg] at offsets (n, 3) [m] from P, and the rigid body they make
    (mass, centre of mass, inertia about it: the definitions)."""
    m = rng.uniform(0.05, 0.3, n)
    r = rng.normal(scale=0.05, size=(n, 3)) + np.array([0.02, -0.01, 0.03])
    M = m.sum()
    c = m @ r / M
    d = r - c
    inertia = sum(mk * ((dk @ dk) * np.eye(3) - np.outer(dk, dk)) for mk, dk in zip(m, d))
    return m, r, Payload(M, tuple(c), inertia)


def test_rigid_body_mass_matrix_and_load_of_a_point_cloud():
    """1/2 v^T M_P v = sum 1/2 m_k |d_dot + r_dot x rho_k|^2 and load . (d, r) = sum
    m_k a . (d + r x rho_k) for random (d_dot, r_dot), a: the parallel-axis theorem, the
    coupling -m [c]x and the moment c x m a (round-off of O(1) sums: 1e-12)."""
    rng = np.random.default_rng(2)
    m, rho, body = _cloud(rng)
    for _ in range(3):
        v = rng.normal(size=6)
        vel = v[:3] + np.cross(v[3:], rho)
        T = 0.5 * np.sum(m * np.einsum("ki,ki->k", vel, vel))
        assert 0.5 * v @ body.mass_matrix @ v == pytest.approx(T, rel=1e-12)
        a = rng.normal(size=3) * 5
        work = np.sum(m * ((v[:3] + np.cross(v[3:], rho)) @ a))
        assert body.load(a) @ v == pytest.approx(work, rel=1e-12)
    # batched load, shape (..., 6)
    A = rng.normal(size=(4, 3))
    np.testing.assert_allclose(body.load(A), np.stack([body.load(x) for x in A]), rtol=1e-15)
    np.testing.assert_allclose(body.mass_matrix, body.mass_matrix.T, atol=0)


def test_combined_bodies_equal_the_union_of_their_clouds():
    """Payload.combined against the definitions applied to the union of the two point
    clouds (mass, centre of mass, inertia about it); M_P is additive about P."""
    rng = np.random.default_rng(4)
    m1, r1, b1 = _cloud(rng, 5)
    m2, r2, b2 = _cloud(rng, 6)
    m, r = np.r_[m1, m2], np.r_[r1, r2]
    c = m @ r / m.sum()
    d = r - c
    inertia = sum(mk * ((dk @ dk) * np.eye(3) - np.outer(dk, dk)) for mk, dk in zip(m, d))
    both = b1.combined(b2)
    assert both.mass == pytest.approx(m.sum(), rel=1e-14)
    np.testing.assert_allclose(both.com_offset, c, rtol=1e-13, atol=1e-16)
    # sums of O(1e-4) products: 1e-12 of the largest entry
    np.testing.assert_allclose(both.inertia_com, inertia, atol=1e-12 * np.abs(inertia).max())
    np.testing.assert_allclose(both.mass_matrix, b1.mass_matrix + b2.mass_matrix,
                               atol=1e-12 * np.abs(both.mass_matrix).max())


def test_platform_constructors():
    disc = Platform(0.5, 0.05, 0.05)
    # solid disc about its centre (at P by default): I_xx = m (3 r^2 + h^2) / 12, I_zz = m r^2 / 2
    ixx = 0.5 * (3 * 0.05**2 + 0.05**2) / 12
    np.testing.assert_allclose(disc.inertia_tensor, np.diag([ixx, ixx, 0.5 * 0.5 * 0.05**2]),
                               rtol=1e-15)
    np.testing.assert_array_equal(disc.body.com_offset, 0.0)
    gen = Platform.rigid(0.5, com=(0.0, 0.0, 0.01), inertia=disc.inertia_tensor)
    assert gen.radius is None and gen.thickness is None
    np.testing.assert_array_equal(gen.inertia_tensor, disc.inertia_tensor)
    np.testing.assert_array_equal(gen.inertia, disc.inertia)
    # an offset disc: parallel-axis theorem about P
    off = Platform(0.5, 0.05, 0.05, com=(0.0, 0.0, 0.02))
    np.testing.assert_allclose(np.diag(off.body.inertia_about_p),
                               [ixx + 0.5 * 0.02**2, ixx + 0.5 * 0.02**2, 0.5 * 0.5 * 0.05**2],
                               rtol=1e-14)


@pytest.mark.parametrize("make,name", [
    (lambda: Platform(0.5), "radius"),
    (lambda: Platform(0.5, 0.05), "thickness"),
    (lambda: Platform(0.5, 0.05, 0.05, inertia_com=np.eye(3) * 1e-3), "radius"),
    (lambda: Platform(-1.0, 0.05, 0.05), "mass"),
    (lambda: Platform.rigid(0.5, inertia=[[1e-3, 2e-3, 0], [0, 1e-3, 0], [0, 0, 1e-3]]),
     "inertia_com"),
    (lambda: Platform.rigid(0.5, inertia=np.diag([1e-3, 1e-3, 3e-3])), "inertia_com"),
    (lambda: Platform.rigid(0.5, inertia=np.diag([-1e-3, 1e-3, 1e-3])), "inertia_com"),
    (lambda: Payload(-0.1), "mass"),
    (lambda: Payload(0.1, com=(0.0, float("nan"), 0.0)), "com"),
    (lambda: Payload(0.1, inertia=np.eye(2)), "inertia"),
])
def test_bad_bodies_name_the_parameter(make, name):
    with pytest.raises(InputError, match=name):
        make()


def test_link_groups_masses_and_stiffness_scaling():
    r = flexible_delta_kuo2016()
    up, lo = Section.circle(10e-3), Section.rectangle(8e-3, 4e-3)
    u = replace(r, section=up, material=ALU, lower_section=lo, lower_material=STEEL)
    assert u.link_sections == (up, lo) and u.link_materials == (ALU, STEEL)
    g = r.geometry
    m1 = 2700.0 * np.pi * 0.01**2 / 4 * g.upper_length
    m2 = 7800.0 * 8e-3 * 4e-3 * g.lower_length
    assert u.link_masses == pytest.approx((m1, m2), rel=1e-14)
    # the default: one section and material for both groups (Kuo)
    assert r.link_sections == (r.section, r.section)
    assert r.link_materials == (r.material, r.material)
    s = u.scaled_stiffness(10.0)
    assert s.link_materials[0].E == 10 * ALU.E and s.link_materials[1].G == 10 * STEEL.G
    assert s.link_materials[1].rho == STEEL.rho
    assert r.scaled_stiffness(2.0).lower_material is None


@pytest.mark.parametrize("kw,name", [(dict(lower_section="8x4"), "lower_section"),
                                     (dict(lower_material=1.0), "lower_material"),
                                     (dict(payload=(0.1, 0, 0)), "payload"),
                                     (dict(motor_inertia=-1.0), "motor_inertia"),
                                     (dict(friction=0.1), "friction")])
def test_bad_flexible_delta_names_the_parameter(kw, name):
    with pytest.raises(InputError, match=name):
        replace(flexible_delta_kuo2016(), **kw)


def test_from_rigid_keeps_the_motors():
    rig = delta_kuo2016()
    fr = Friction(viscous=0.01)
    rig = replace(rig, masses=replace(rig.masses, motor_inertia=2e-3), friction=fr)
    f = FlexibleDelta.from_rigid(rig)
    assert f.motor_inertia == 2e-3 and f.friction == fr
    k = flexible_delta_kuo2016()
    assert k.motor_inertia == 0.0 and k.friction.is_zero and k.payload is None


def test_re_expressed_kuo_robot_gives_the_same_model():
    """The Kuo robot written with every new field explicit (lower section and material
    equal to the upper ones, the disc as Platform.rigid, a zero-mass payload, no motor)
    gives the same KED matrices, bit for bit, and the preset's carried body is its disc."""
    r = flexible_delta_kuo2016()
    x = replace(r, lower_section=r.section, lower_material=r.material,
                platform=Platform.rigid(r.platform.mass, inertia=r.platform.inertia_tensor),
                payload=Payload(0.0))
    smp = InvertedU.kuo2016().evaluate(np.array([0.2, 0.5]))
    for jd in ("universal", "clamped"):
        a, b = KEDEngine(r, elements=2, joint_d=jd), KEDEngine(x, elements=2,
                                                                         joint_d=jd)
        mo = a.motion(smp.position, smp.velocity, smp.acceleration)
        for k in range(2):
            sa, sb = a.system(mo, k), b.system(mo, k)
            for name in ("M", "C", "K", "F", "end_force"):
                np.testing.assert_array_equal(getattr(sb, name), getattr(sa, name))
    body = r.carried_body
    assert body.mass == 0.5
    np.testing.assert_array_equal(body.inertia_com, r.platform.inertia_tensor)
