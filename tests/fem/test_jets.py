"""Exact second-order forward differentiation (elastodyn.fem.jets) and the corotational
derivatives built on it, against independent results: closed-form derivatives of
simple functions, the complex step of the value path (exact first derivatives; its
second derivatives through first-order jets), the test oracle's own jet arithmetic
(tests/references/reference_delta_sagged.py, written independently), and the previous method
(central differences of complex-step gradients, accurate to ~1e-7)."""
from __future__ import annotations

import numpy as np
import pytest

import reference_delta_sagged as oracle
from elastodyn.description.materials import Material, Section
from elastodyn.fem import jets
from elastodyn.fem.corotational import (CorotationalBeam, potential_derivatives,
                                        potential_gradient, rotation_coefficients,
                                        so3_exp, spin_jacobian)

RNG = np.random.default_rng(16)
H_CS = 1e-30     # complex step: first derivatives to round-off


def _cs_gradient(f, z0):
    """Complex-step gradient (..., nv) of f (arrays only, no jets)."""
    nv = z0.shape[-1]
    return f(z0[..., None, :] + 1j * H_CS * np.eye(nv)).imag / H_CS


def _old_hessian(f, z0, step=1e-8):
    """The previous method: central differences of complex-step gradients."""
    nv = z0.shape[-1]
    e = np.eye(nv)
    H = np.stack([(_cs_gradient(f, z0 + step * e[k]) - _cs_gradient(f, z0 - step * e[k]))
                  / (2 * step) for k in range(nv)], axis=-2)
    return 0.5 * (H + np.swapaxes(H, -1, -2))


def _cs_hessian(f, z0):
    """Exact Hessian independent of the second-order jets: the complex step of the
    first-order jets' gradient (exact: jet components may be complex)."""
    nv = z0.shape[-1]
    return np.stack([potential_gradient(f, z0 + 1j * H_CS * np.eye(nv)[k]).imag / H_CS
                     for k in range(nv)], axis=-2)


# ---------------------------------------------------------------------- closed forms
def test_scalar_function_against_closed_form_derivatives():
    """f = sin(x) y^2 / z + cos(y) sqrt(z) + x^3: gradient and Hessian by hand; to
    round-off (1e-13 relative)."""
    z0 = RNG.uniform(0.5, 2.0, size=(4, 3))

    def f(w):
        x, y, z = w[..., 0], w[..., 1], w[..., 2]
        return np.sin(x) * y * y / z + np.cos(y) * np.sqrt(z) + x ** 3

    v, g, H = potential_derivatives(f, z0)
    x, y, z = z0.T
    sx, cx, sy, cy, rz = np.sin(x), np.cos(x), np.sin(y), np.cos(y), np.sqrt(z)
    np.testing.assert_allclose(v, f(z0), rtol=1e-14)
    gx = cx * y**2 / z + 3 * x**2
    gy = 2 * sx * y / z - sy * rz
    gz = -sx * y**2 / z**2 + cy / (2 * rz)
    np.testing.assert_allclose(g, np.stack([gx, gy, gz], -1), rtol=1e-13)
    Hxx = -sx * y**2 / z + 6 * x
    Hxy = 2 * cx * y / z
    Hxz = -cx * y**2 / z**2
    Hyy = 2 * sx / z - cy * rz
    Hyz = -2 * sx * y / z**2 - sy / (2 * rz)
    Hzz = 2 * sx * y**2 / z**3 - cy / (4 * z * rz)
    Hx = np.stack([np.stack([Hxx, Hxy, Hxz], -1), np.stack([Hxy, Hyy, Hyz], -1),
                   np.stack([Hxz, Hyz, Hzz], -1)], -2)
    np.testing.assert_allclose(H, Hx, rtol=1e-12, atol=1e-13 * np.abs(Hx).max())
    # first order only
    np.testing.assert_allclose(potential_gradient(f, z0), g, rtol=1e-14)


def test_complex_data_carry_an_outer_complex_step():
    """f(z; p) = p sin(z0 z1) + exp-free polynomial: the jets of f at data p + i h give
    d/dp of the value, gradient and Hessian as their imaginary parts / h (closed form)."""
    z0 = np.array([0.3, 0.7])
    p, h = 1.7, 1e-30

    def f(w, p):
        return p * np.sin(w[..., 0] * w[..., 1]) + p * p * w[..., 0] ** 2

    _, g, H = potential_derivatives(lambda w: f(w, p + 1j * h), z0)
    a, b = z0
    s, c = np.sin(a * b), np.cos(a * b)
    # d/dp of g = (p b c + 2 p^2 a, p a c) and of H
    np.testing.assert_allclose(g.imag / h, [b * c + 4 * p * a, a * c], rtol=1e-14)
    dH = np.array([[-b * b * s + 4 * p, c - a * b * s], [c - a * b * s, -a * a * s]])
    np.testing.assert_allclose(H.imag / h, dH, rtol=1e-13)


def test_structure_operations_against_the_oracle_jets():
    """Products, matmul, cross, sqrt, reciprocal, stack, swapaxes and sums of random
    jets against the oracle's independent Jet class (same v, g, H inputs)."""
    B, n = 5, 4

    def rand(*shape):
        g = RNG.normal(size=(B,) + shape + (n,))
        Hh = RNG.normal(size=(B,) + shape + (n, n))
        return RNG.normal(size=(B,) + shape) + 2.0, g, Hh + np.swapaxes(Hh, -1, -2)

    A, C, a, b = rand(3, 3), rand(3, 3), rand(3), rand(3)
    mine = {k: jets.Jet(*x) for k, x in dict(A=A, C=C, a=a, b=b).items()}
    ref = {k: oracle.Jet(*x) for k, x in dict(A=A, C=C, a=a, b=b).items()}

    def close(x, y):     # x.H is stored up to an antisymmetric part: its Hessian
        for u, w in ((x.v, y.v), (x.g, y.g), (jets.hessian(x, n), y.H)):
            np.testing.assert_allclose(u, w, rtol=1e-12, atol=1e-12 * np.abs(w).max())

    close(mine["A"] @ mine["C"], oracle._matmul(ref["A"], ref["C"]))
    close(np.einsum("...ij,...j->...i", mine["A"], mine["a"]),
          oracle._matvec(ref["A"], ref["a"]))
    close(np.cross(mine["a"], mine["b"]), oracle._cross(ref["a"], ref["b"]))
    dot = np.einsum("...i,...i->...", mine["a"], mine["b"])
    close(dot, oracle._dot(ref["a"], ref["b"]))
    r2 = oracle._dot(ref["a"], ref["a"])
    close(np.sqrt(np.einsum("...i,...i->...", mine["a"], mine["a"])), r2.sqrt())
    close(1.0 / np.sum(mine["a"] * mine["a"], axis=-1), r2.reciprocal())
    close(mine["a"] / np.sqrt(np.einsum("...i,...i->...", mine["a"], mine["a"]))[..., None],
          ref["a"] * r2.rsqrt()[:, None])
    close(np.swapaxes(mine["A"], -1, -2), ref["A"].T())
    close(np.stack([mine["a"], mine["b"]], axis=-1), oracle.Jet.stack([ref["a"], ref["b"]], 2))
    close(np.concatenate([mine["a"], mine["b"]], axis=-1)[..., 3:], ref["b"])
    close(mine["A"][..., :, 1], ref["A"][:, :, 1])


def test_rotation_jets_against_the_oracle_and_the_complex_step():
    """so3_exp on jets: at zero against the oracle's second-order expansion of
    expm(skew(theta)) Q0; away from zero its gradient against the complex step of the
    value path and its Hessian against the complex step of first-order jets."""
    Q0 = so3_exp(RNG.normal(size=(3, 3)))
    z = jets.variables(np.zeros((3, 3)))
    R = so3_exp(z) @ Q0
    ref = oracle._rot_jet(Q0, 0, 3)
    np.testing.assert_allclose(R.v, ref.v, atol=1e-15)
    np.testing.assert_allclose(R.g, ref.g, atol=1e-14)
    np.testing.assert_allclose(jets.hessian(R, 3), ref.H, atol=1e-14)
    # rotations on both sides of the series / closed-form switch (|phi| = 1 rad)
    phi = RNG.normal(size=(6, 3))
    phi *= np.array([1e-4, 0.3, 0.99, 1.01, 2.0, 3.0])[:, None] / np.linalg.norm(phi, axis=1,
                                                                                   keepdims=True)
    for i, j in ((0, 0), (1, 2), (2, 1)):
        def f(w, i=i, j=j):
            return so3_exp(w)[..., i, j]
        v, g, H = potential_derivatives(f, phi)
        np.testing.assert_allclose(g, _cs_gradient(f, phi), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(H, _cs_hessian(f, phi), rtol=1e-11, atol=1e-13)


def test_rotation_coefficients_series_and_closed_forms():
    """a(s) = sin t / t, b(s) = (1 - cos t) / t^2 and two derivatives in s = t^2:
    continuous across the switch at |s| = 1 and consistent (each derivative the
    complex step of the one before), for real and complex s."""
    s = np.array([1e-6, 0.2, 0.999999, 1.000001, 2.5, 9.0, 0.5 + 0.6j, 1.2 - 0.3j])
    (a, a1, a2), (b, b1, b2) = rotation_coefficients(s, 2)
    t = np.sqrt(s + 0j)
    np.testing.assert_allclose(a, np.sin(t) / t, rtol=1e-14)
    np.testing.assert_allclose(b, (1 - np.cos(t)) / s, rtol=1e-10)   # cancellation at 1e-6
    h = 1e-20
    for f0, f1 in (((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (1, 1)), ((1, 1), (1, 2))):
        real = np.isreal(s)
        sr = s[real].real
        shifted = rotation_coefficients(sr + 1j * h, 2)
        base = rotation_coefficients(sr, 2)
        np.testing.assert_allclose(shifted[f0[0]][f0[1]].imag / h, base[f1[0]][f1[1]],
                                   rtol=1e-12)


# ---------------------------------------------------------------------- corotational
SEC = Section.rectangle(0.01, 0.006)
MAT = Material(E=200e9, G=80e9, rho=7800.0)


def _element_potential(beam, chord, b0, b1):
    def f(z):
        ua, ub = z[..., 0:3], z[..., 6:9]
        ta, tb = so3_exp(z[..., 3:6]), so3_exp(z[..., 9:12])
        return beam.potential(ua, ta, ub, tb, chord, b0, b1)
    return f


def test_element_hessian_exact_against_the_previous_method():
    """A corotational element's potential at large displacements and rotations: the
    jets' gradient equals the complex step to round-off, their Hessian the complex step
    of first-order jets to round-off and the previous central-difference Hessian to its
    accuracy (~1e-9 of the largest, axial, entries; 1e-7 allowed)."""
    beam = CorotationalBeam.of(0.2, SEC, MAT)
    chord = np.array([0.2, 0.0, 0.0])
    b0, b1 = np.array([0.3, -1.0, -9.81]), np.array([2.0, 0.5, -1.0])
    z0 = np.concatenate([RNG.normal(scale=[1e-3, 1e-3, 1e-3, 0.2, 0.2, 0.2], size=(3, 6)),
                         RNG.normal(scale=[1e-3, 1e-3, 1e-3, 0.2, 0.2, 0.2], size=(3, 6))],
                        axis=1)
    f = _element_potential(beam, chord, b0, b1)
    v, g, H = potential_derivatives(f, z0)
    np.testing.assert_allclose(v, f(z0), rtol=1e-13)
    gs = _cs_gradient(f, z0)
    np.testing.assert_allclose(g, gs, rtol=0, atol=1e-11 * np.abs(gs).max())
    Hc = _cs_hessian(f, z0)
    np.testing.assert_allclose(H, Hc, rtol=0, atol=1e-12 * np.abs(Hc).max())
    np.testing.assert_allclose(H, np.swapaxes(H, -1, -2), rtol=0, atol=0)
    Ho = _old_hessian(f, z0)
    np.testing.assert_allclose(H, Ho, rtol=0, atol=1e-7 * np.abs(Ho).max())
    # undeformed and unrotated: the linear element's stiffness
    _, _, H0 = potential_derivatives(_element_potential(beam, chord, 0 * b0, 0 * b1),
                                     np.zeros(12))
    np.testing.assert_allclose(H0, beam.stiffness, rtol=0,
                               atol=1e-12 * np.abs(beam.stiffness).max())


def test_spin_jacobian_against_the_complex_step():
    """Positions and spins of two rotated nodes: J = (dx, vee(dR R^T)) against the
    complex step of the value path."""
    z0 = RNG.normal(scale=0.4, size=(2, 12))

    def config(z):
        return (np.stack([z[..., 0:3], 2 * z[..., 6:9]], -2),
                np.stack([so3_exp(z[..., 3:6]), so3_exp(z[..., 9:12])], -3))

    J = spin_jacobian(config, z0)
    x, R = config(z0[..., None, :] + 1j * H_CS * np.eye(12))
    dR = R.imag / H_CS                                               # (2, nv, k, 3, 3)
    W = dR @ np.swapaxes(config(z0)[1], -1, -2)[:, None]
    w = 0.5 * np.stack([W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0],
                        W[..., 1, 0] - W[..., 0, 1]], -1)
    ref = np.moveaxis(np.concatenate([x.imag / H_CS, w], -1), 1, -1)
    np.testing.assert_allclose(J, ref, rtol=1e-13, atol=1e-14)


def test_deflected_tangent_equals_differences_of_its_gradient():
    """The KED Delta's assembled tangent at its deflected reference (leg blocks)
    against central differences (step 1e-7) of its exact gradient: agreement to the
    differences' accuracy (truncation ~ h^2 V^(4), round-off eps |g_e| / h ~ 1e-8 of
    the largest entries)."""
    from elastodyn.formulations.ked.blocks import dense_leg_blocks
    from elastodyn.description.flexible_delta import flexible_delta_kuo2016
    from elastodyn.formulations.ked.deflected import DeflectedReference
    from elastodyn.formulations.ked.engine import KEDEngine
    m = KEDEngine(flexible_delta_kuo2016(), elements=2)
    ref = DeflectedReference(m)
    mo = m.motion(np.array([[0.1, 0.05, 0.45]]))
    st = m.deflected_reference(mo)
    K = dense_leg_blocks(st.K, st.blocks, m.dof)[0]
    d0 = st.delta[0]
    h = 1e-7
    cols = []
    for k in range(m.dof):
        e = np.zeros(m.dof)
        e[k] = h
        gp = dense_leg_blocks(ref.gradient(mo, [0], (d0 + e)[None]), st.blocks, m.dof,
                              matrix=False)[0]
        gm = dense_leg_blocks(ref.gradient(mo, [0], (d0 - e)[None]), st.blocks, m.dof,
                              matrix=False)[0]
        cols.append((gp - gm) / (2 * h))
    Kfd = np.array(cols).T
    np.testing.assert_allclose(K, Kfd, rtol=0, atol=1e-6 * np.abs(K).max())


@pytest.mark.parametrize("bad", ["...iY,...i->...", "...i,...i"])
def test_einsum_needs_explicit_subscripts(bad):
    z = jets.variables(np.ones((2, 3)))
    with pytest.raises(ValueError, match="explicit"):
        np.einsum(bad, z, z)
