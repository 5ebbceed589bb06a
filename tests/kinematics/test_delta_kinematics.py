"""Tests of elastodyn.kinematics.delta: inverse/forward kinematics, branches, the two
papers' conventions, Jacobians, passive angles, singularities and bad input.

Every check compares the library with something it does not compute itself: Kuo's
published angles (errata), the loop-closure constraint |D_i - B_i| = L2, Asadi's own
rotation matrices (eqs. 1-4, 7), Kuo's corrected chain (errata eq. 3), finite
differences, and a brute-force scan of the elbow circle.
"""
from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elastodyn.description.delta import (
    DeltaGeometry,
    DeltaMasses,
    Friction,
    RigidDelta,
    delta_asadi2020,
    delta_kuo2016,
)
from elastodyn.exceptions import DimensionError, InputError
from elastodyn.kinematics.delta import (
    DeltaKinematics,
    SingularConfigurationError,
    SingularityWarning,
    UnreachableError,
)

EPS = np.finfo(float).eps
EZ = np.array([0.0, 0.0, 1.0])

KUO = delta_kuo2016().geometry
ASADI = delta_asadi2020().geometry
GEOMETRIES = {"kuo2016": KUO, "asadi2020": ASADI}

# Sampling boxes around each paper's working region (Kuo: circle at z = 0.5 m; Asadi:
# circle at z = 0.45 m). They are larger than the workspace, so `assume` has work to do.
BOXES = {"kuo2016": ((-0.4, -0.4, 0.2), (0.4, 0.4, 1.0)),
         "asadi2020": ((-0.3, -0.3, 0.2), (0.3, 0.3, 0.7))}
CENTRES = {"kuo2016": np.array([0.0, 0.0, 0.5]), "asadi2020": np.array([0.0, 0.0, 0.45])}

HYP = settings(max_examples=150, deadline=None, derandomize=True)


def kin(name: str) -> DeltaKinematics:
    return DeltaKinematics(GEOMETRIES[name])


def quiet_condition(k: DeltaKinematics, X, q=None):
    """Condition number without the SingularityWarning (used to filter samples)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        return k.condition_number(X, q=q)


def wrap(a):
    """Angle difference wrapped to (-pi, pi]."""
    return np.angle(np.exp(1j * np.asarray(a)))


def rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def interior_points(name: str, n: int, seed: int, max_condition: float = 1e2) -> np.ndarray:
    """Random reachable, well-conditioned points within 0.15 m of the paper's centre."""
    k = kin(name)
    X = CENTRES[name] + np.random.default_rng(seed).uniform(-0.15, 0.15, size=(4 * n, 3))
    X = X[k.is_reachable(X)]
    X = X[quiet_condition(k, X) < max_condition][:n]
    assert len(X) == n
    return X


def elbow_circle_distance_range(g: DeltaGeometry, X, leg: int, n: int = 200001):
    """Brute force: min and max of |D_i - B_i(q)| over a dense scan of q in [0, 2 pi).

    Independent of the library's closed form; the scan resolves the extrema to
    L1 (2 pi / n)^2 / 2 < 1e-10 m (the distance is stationary there).
    """
    e = g.radial[leg]
    q = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    B = g.base_radius * e + g.upper_length * (np.cos(q)[:, None] * e + np.sin(q)[:, None] * EZ)
    d = np.linalg.norm(np.asarray(X) + g.platform_radius * e - B, axis=1)
    return d.min(), d.max()


# ------------------------------------------------------------------ Kuo's errata check


def test_kuo_errata_inverse_kinematics():
    """Errata (Kinematics): elbows out at P = (0.1, 0, 0.5) m gives -10.76, -29.30,
    -29.30 deg. The published values are rounded to 0.01 deg, so they are within
    0.005 deg of the exact ones."""
    q = DeltaKinematics(KUO).inverse_kinematics((0.1, 0.0, 0.5))
    np.testing.assert_allclose(np.rad2deg(q), [-10.76, -29.30, -29.30], rtol=0, atol=0.005)


# ------------------------------------------------------------------ FK / IK round trips


@pytest.mark.parametrize("name", GEOMETRIES)
@HYP
@given(x=st.floats(0.0, 1.0), y=st.floats(0.0, 1.0), z=st.floats(0.0, 1.0))
def test_forward_of_inverse_is_identity(name, x, y, z):
    lo, hi = map(np.asarray, BOXES[name])
    X = lo + (hi - lo) * np.array([x, y, z])
    k = kin(name)
    assume(bool(k.is_reachable(X)))
    cond = float(quiet_condition(k, X))
    assume(cond < 1e3)
    q = k.inverse_kinematics(X)
    # the angles close every loop (independent of the forward kinematics)
    U = k.platform_joints(X) - k.elbows(q)
    np.testing.assert_allclose(np.linalg.norm(U, axis=1), k.geometry.lower_length,
                               rtol=0, atol=1e-13)
    # Forward error = cond(J) x backward error; the backward error of both closed forms
    # is a few ulp of the link lengths (~1 m): 100 eps cond m bounds it with a margin
    # (measured: <= 2 eps cond m over 20000 points).
    tol = 100 * EPS * cond * 1.0
    np.testing.assert_allclose(k.forward_kinematics(q), X, rtol=0, atol=tol)


@pytest.mark.parametrize("name", GEOMETRIES)
@HYP
@given(q=st.lists(st.floats(-1.4, 1.4), min_size=3, max_size=3))
def test_inverse_of_forward_is_identity(name, q):
    q = np.asarray(q)
    k = kin(name)
    try:
        X = k.forward_kinematics(q)
    except InputError:
        assume(False)
    cond = float(quiet_condition(k, X, q=q))
    assume(cond < 1e3)
    # X closes the three loops with these angles
    np.testing.assert_allclose(np.linalg.norm(k.platform_joints(X) - k.elbows(q), axis=1),
                               k.geometry.lower_length, rtol=0, atol=1e-13)
    # q is, leg by leg, one of the two IK solutions; the IK of that branch returns it
    sols = k.inverse_kinematics_all(X)
    dist = np.abs(wrap(sols - q[:, None]))
    branch = tuple("out" if d[0] <= d[1] else "in" for d in dist)
    # same error budget as the forward round trip, in rad (measured <= 24 eps cond:
    # acos amplifies near the double root, which is where cond grows)
    tol = 100 * EPS * cond
    assert np.all(dist.min(axis=1) <= tol)
    np.testing.assert_allclose(wrap(k.inverse_kinematics(X, branch=branch) - q), 0.0,
                               rtol=0, atol=tol)


# ------------------------------------------------------------------ both branches


@pytest.mark.parametrize("name", GEOMETRIES)
def test_every_branch_closes_the_loop_and_out_is_outside(name):
    """Both IK solutions of every leg satisfy |D_i - B_i| = L2; the "out" one puts the
    elbow on the outer side of the line A_i -> P' (rho_B zeta - zeta_B rho > 0), the
    "in" one on the inner side (module docstring rule)."""
    k = kin(name)
    g = k.geometry
    X = interior_points(name, 200, seed=11, max_condition=1e3)
    sols = k.inverse_kinematics_all(X)
    assert sols.shape == (len(X), 3, 2)
    assert np.all(np.isfinite(sols))
    A = g.base_radius * g.radial
    D = k.platform_joints(X)
    sides = []
    for b in range(2):
        B = k.elbows(sols[..., b])
        # loop closure: a few ulp of ~1 m quantities
        np.testing.assert_allclose(np.linalg.norm(D - B, axis=-1), g.lower_length,
                                   rtol=0, atol=1e-13)
        rho_B = np.einsum("nij,ij->ni", B - A, g.radial)
        zeta_B = (B - A)[..., 2]
        rho = np.einsum("nij,ij->ni", D - A, g.radial)
        zeta = (D - A)[..., 2]
        sides.append(rho_B * zeta - zeta_B * rho)
    assert np.all(sides[0] > 0) and np.all(sides[1] < 0)
    # the two solutions are distinct inside the workspace
    assert np.all(np.abs(wrap(sols[..., 0] - sols[..., 1])) > 1e-6)
    # inverse_kinematics picks them by name, leg by leg
    np.testing.assert_array_equal(k.inverse_kinematics(X), sols[..., 0])
    np.testing.assert_array_equal(k.inverse_kinematics(X, "in"), sols[..., 1])
    mixed = k.inverse_kinematics(X, ("out", "in", "out"))
    np.testing.assert_array_equal(mixed, np.stack([sols[:, 0, 0], sols[:, 1, 1], sols[:, 2, 0]], 1))
    # single point in, single point out
    assert k.inverse_kinematics_all(X[0]).shape == (3, 2)
    assert k.inverse_kinematics(X[0]).shape == (3,)


def test_inverse_kinematics_all_marks_unreachable_legs_with_nan():
    k = DeltaKinematics(KUO)
    X = np.array([0.6, 0.0, 0.9])  # leg 1 reaches it, legs 2 and 3 do not
    ok = k.reachability_margin(X) >= 0
    np.testing.assert_array_equal(ok, [True, False, False])
    sols = k.inverse_kinematics_all(X)
    assert np.all(np.isfinite(sols[0])) and np.all(np.isnan(sols[1:]))


# ------------------------------------------------------------------ conventions


def test_asadi_convention_describes_the_same_robot():
    """Kuo's robot written in Asadi's symbols (phi_i = theta_i - pi/2): the same elbows,
    q_asadi = -q_kuo, J_asadi = -J_kuo, Jd_asadi = -Jd_kuo."""
    theta = np.array([0.0, 2 * math.pi / 3, 4 * math.pi / 3])
    gk = DeltaGeometry(0.1, 0.05, 0.5, 0.6, tuple(theta), "kuo2016")
    ga = DeltaGeometry.from_asadi(0.1, 0.05, 0.5, 0.6, phi=tuple(theta - math.pi / 2))
    assert ga.convention == "asadi2020" and gk.sign == 1.0 and ga.sign == -1.0
    np.testing.assert_allclose(ga.leg_angles, theta, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ga.radial, gk.radial, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ga.axes, -gk.axes, rtol=0, atol=1e-15)
    kk, ka = DeltaKinematics(gk), DeltaKinematics(ga)
    X = interior_points("kuo2016", 50, seed=3)
    Xd = np.random.default_rng(4).normal(size=X.shape)
    qk, qa = kk.inverse_kinematics(X), ka.inverse_kinematics(X)
    # the sign flip is exact (the same operations on negated inputs)
    np.testing.assert_allclose(qa, -qk, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ka.inverse_kinematics(X, "in"), -kk.inverse_kinematics(X, "in"),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(ka.elbows(qa), kk.elbows(qk), rtol=0, atol=1e-14)
    sk, sa = kk.state(X, Xd), ka.state(X, Xd)
    np.testing.assert_allclose(sa.J, -sk.J, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sa.Jd, -sk.Jd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sa.qd, -sk.qd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sa.T, -sk.T, rtol=0, atol=1e-14)  # dB/dq flips with q
    np.testing.assert_allclose(ka.condition_number(X), kk.condition_number(X), rtol=1e-12)
    np.testing.assert_allclose(ka.forward_kinematics(qa), X, rtol=0, atol=1e-12)
    for pa, pk in zip(ka.passive_angles(X, qa), kk.passive_angles(X, qk)):
        np.testing.assert_allclose(pa, pk, rtol=0, atol=1e-12)


def test_asadi_preset_matches_asadi_rotation_matrices():
    """Asadi eqs. (1)-(4), (7) written out with his matrices: A_i = R_i R_b,
    B_i - A_i = R_i O_i L, U_i = X - R_i((R_b - R_a) + O_i L), T_i = R_i S_1 O_i L."""
    g = ASADI
    k = DeltaKinematics(g)
    phi = (math.pi, -math.pi / 3, math.pi / 3)
    Rb, Ra, L = np.array([0, 0.2, 0]), np.array([0, 0.2, 0]), np.array([0, 0.2, 0])
    S1 = np.array([[0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    X = interior_points("asadi2020", 20, seed=5)
    for Xn in X:
        q = k.inverse_kinematics(Xn)
        st_ = k.state(Xn)
        B = k.elbows(q)
        for i in range(3):
            R, O = rz(phi[i]), rx(q[i])
            np.testing.assert_allclose(B[i] - R @ Rb, R @ O @ L, rtol=0, atol=1e-15)
            U = Xn - R @ ((Rb - Ra) + O @ L)
            np.testing.assert_allclose(st_.U[0, i], U, rtol=0, atol=1e-15)
            assert abs(U @ U - 0.52**2) < 1e-13
            np.testing.assert_allclose(st_.T[0, i], R @ S1 @ O @ L, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", GEOMETRIES)
def test_actuated_angle_is_right_handed_about_its_axis(name):
    """dB_i/dq_i = a_i x (B_i - A_i) with a_i = geometry.axes (central differences,
    step 1e-6 rad: error L1 h^2 / 6 ~ 1e-13 m/rad plus round-off ~ eps L1 / h ~ 1e-10),
    and the documented sign: q > 0 lifts the elbow (Z down) for Kuo, lowers it for Asadi."""
    k = kin(name)
    g = k.geometry
    A = g.base_radius * g.radial
    q = np.array([0.3, -0.7, 1.1])
    h = 1e-6
    for i in range(3):
        dq = np.zeros(3)
        dq[i] = h
        dB = (k.elbows(q + dq) - k.elbows(q - dq))[i] / (2 * h)
        B = k.elbows(q)[i]
        np.testing.assert_allclose(dB, np.cross(g.axes[i], B - A[i]), rtol=0, atol=1e-9)
    Bz = k.elbows(np.full(3, 0.4))[:, 2]
    assert np.all(Bz < 0) if name == "kuo2016" else np.all(Bz > 0)


# ------------------------------------------------------------------ Jacobians


def richardson_check(fd_h, fd_2h, exact, roundoff, sharp):
    """Central differences: the truncation error of fd_h is c h^2 + O(h^4), that of
    fd_2h four times as large, so |fd_2h - fd_h| (= 3 |c| h^2) bounds the truncation
    error of fd_h with a factor-3 margin. ``roundoff`` bounds the cancellation error.
    ``sharp``: the resulting tolerance must resolve ``exact`` to this relative level."""
    tol = np.abs(fd_2h - fd_h) + roundoff
    err = np.abs(fd_h - exact)
    scale = np.max(np.abs(exact))
    assert np.all(err <= tol), f"max error {err.max()} (tol there {tol.flat[np.argmax(err - tol)]})"
    assert np.max(tol) <= sharp * scale, f"tolerance {np.max(tol)} too loose for {scale}"


@pytest.mark.parametrize("name", GEOMETRIES)
def test_jacobian_matches_finite_differences_of_ik(name):
    k = kin(name)
    X = interior_points(name, 100, seed=7)
    J = k.jacobian(X)
    h = 1e-6  # m
    E = np.eye(3)

    def fd(step):
        return np.stack([(k.inverse_kinematics(X + step * E[j])
                          - k.inverse_kinematics(X - step * E[j])) / (2 * step)
                         for j in range(3)], axis=-1)

    # round-off: each q is accurate to a few ulp of |q| < pi (100 eps pi / h ~ 7e-8
    # rad/m); the sharpness 1e-6 |J| still catches any wrong entry
    richardson_check(fd(h), fd(2 * h), J, 100 * EPS * math.pi / h, sharp=1e-6)
    # single point API
    np.testing.assert_array_equal(k.jacobian(X[0]), J[0])


@pytest.mark.parametrize("name", GEOMETRIES)
def test_jacobian_derivative_matches_finite_differences_of_j(name):
    """Jd = dJ/dt along Xd = (J(X + h Xd) - J(X - h Xd)) / 2h + O(h^2)."""
    k = kin(name)
    X = interior_points(name, 100, seed=8)
    Xd = np.random.default_rng(9).normal(0.0, 1.0, size=X.shape)  # m/s
    Jd = k.jacobian_derivative(X, Xd)
    h = 1e-6  # s

    def fd(step):
        return (k.jacobian(X + step * Xd) - k.jacobian(X - step * Xd)) / (2 * step)

    Jmax = np.abs(k.jacobian(X)).max()
    # round-off: J is accurate to a few hundred ulp of |J| (a quotient of dot products)
    richardson_check(fd(h), fd(2 * h), Jd, 1e3 * EPS * Jmax / h, sharp=1e-5)
    np.testing.assert_array_equal(k.jacobian_derivative(X[0], Xd[0]), Jd[0])


@pytest.mark.parametrize("name", GEOMETRIES)
def test_state_rates_are_time_derivatives_of_ik_along_a_path(name):
    """qd and qdd from state() against 5-point differences of q(t) = IK(X(t)) along
    X(t) = X0 + a sin(w t + ph) (analytic Xd, Xdd)."""
    k = kin(name)
    X0 = CENTRES[name] + np.array([0.02, -0.03, 0.0])
    a, w, ph = np.array([0.08, 0.06, 0.07]), np.array([2.1, 3.3, 2.7]), np.array([0.3, 1.1, -0.4])

    def path(t):
        return X0 + a * np.sin(w * np.asarray(t)[:, None] + ph)

    t = np.linspace(0.0, 2.0, 41)
    s = k.state(path(t), a * w * np.cos(w * t[:, None] + ph), -a * w**2 * np.sin(w * t[:, None] + ph))
    np.testing.assert_array_equal(s.q, k.inverse_kinematics(path(t)))

    def q(tt):
        return k.inverse_kinematics(path(tt))

    def d1(h):
        return (-q(t + 2 * h) + 8 * q(t + h) - 8 * q(t - h) + q(t - 2 * h)) / (12 * h)

    def d2(h):
        return (-q(t + 2 * h) + 16 * q(t + h) - 30 * q(t) + 16 * q(t - h) - q(t - 2 * h)) / (12 * h * h)

    h = 2e-3  # s
    # 4th-order stencils: truncation c h^4, so |fd_2h - fd_h| = 15 |c| h^4 bounds it
    # (richardson_check's factor-3 argument holds a fortiori). Round-off: the stencil
    # weights sum to 18/12 (first) and 64/12 (second derivative) times ulp(q) ~ eps pi.
    richardson_check(d1(h), d1(2 * h), s.qd, 1.5 * 10 * EPS * math.pi / h, sharp=1e-8)
    richardson_check(d2(h), d2(2 * h), s.qdd, 5.4 * 10 * EPS * math.pi / h**2, sharp=1e-7)


# ------------------------------------------------------------------ passive angles


@pytest.mark.parametrize("name", GEOMETRIES)
def test_passive_angles_rebuild_the_platform_position(name):
    """Errata eq. (3): in the chain frame of leg i (rotated by theta_i about Z),
    P = (r + L1 c1 + L2 c12 c3, L2 s3, -L1 s1 - L2 s12 c3) with phi_1 Kuo's actuated
    angle (= q for kuo2016, -q for asadi2020)."""
    k = kin(name)
    g = k.geometry
    X = interior_points(name, 100, seed=12, max_condition=1e3)
    for branch in ("out", "in"):
        q = k.inverse_kinematics(X, branch)
        phi2, phi3 = k.passive_angles(X, q)
        assert np.all(np.abs(phi3) <= math.pi / 2)
        phi1 = g.sign * q
        r, L1, L2 = g.offset, g.upper_length, g.lower_length
        c1, s1 = np.cos(phi1), np.sin(phi1)
        c12, s12 = np.cos(phi1 + phi2), np.sin(phi1 + phi2)
        c3, s3 = np.cos(phi3), np.sin(phi3)
        P_chain = np.stack([r + L1 * c1 + L2 * c12 * c3, L2 * s3, -L1 * s1 - L2 * s12 * c3], -1)
        for i, th in enumerate(g.leg_angles):
            P = P_chain[:, i, :] @ rz(th).T
            # a few ulp of ~1 m lengths through two trigonometric rebuilds
            np.testing.assert_allclose(P, X, rtol=0, atol=1e-13)
    one = k.passive_angles(X[0], k.inverse_kinematics(X[0]))
    assert one[0].shape == one[1].shape == (3,)


# ------------------------------------------------------------------ unreachable points


def test_unreachable_point_names_point_and_leg():
    """The leg named is the first one that misses the point, found here by a dense scan
    of its elbow circle; the three rotated copies of one point exercise legs 1, 2, 3."""
    k = DeltaKinematics(KUO)
    base = np.array([0.0, -0.51, 0.13])  # only leg 1 misses it (too close to its base)
    for turn in range(3):
        X = rz(2 * math.pi * turn / 3) @ base
        missing = []
        for leg in range(3):
            dmin, dmax = elbow_circle_distance_range(KUO, X, leg)
            if not dmin - 1e-9 <= KUO.lower_length <= dmax + 1e-9:
                missing.append(leg + 1)
        assert missing == [turn + 1]
        assert not k.is_reachable(X)
        with pytest.raises(UnreachableError) as info:
            k.inverse_kinematics(X)
        err = info.value
        assert isinstance(err, ValueError) and isinstance(err, InputError)
        assert err.leg == turn + 1
        np.testing.assert_allclose(err.point, X)
        msg = str(err)
        assert f"leg {turn + 1}" in msg
        assert "(" + ", ".join(f"{v:.6g}" for v in X) + ")" in msg
        # state() and the dynamics entry points go through the same check
        with pytest.raises(UnreachableError):
            k.state(X)
    # far below the workspace: every leg misses, the first is named; "too far" vs
    # "too close" is reported
    with pytest.raises(UnreachableError, match=r"\(0, 0, 1\.2\).*leg 1.*too far"):
        k.inverse_kinematics((0.0, 0.0, 1.2))
    with pytest.raises(UnreachableError, match=r"leg 1.*too close"):
        k.inverse_kinematics((0.0, 0.0, 0.05))
    # in a batch, the offending sample is named
    with pytest.raises(UnreachableError, match=r"\(0, 0, 1\.2\)"):
        k.inverse_kinematics([[0.0, 0.0, 0.5], [0.0, 0.0, 1.2]])


@pytest.mark.parametrize("name", GEOMETRIES)
def test_reachability_margin_matches_a_brute_force_scan(name):
    """margin_i = min(L2 - d_min, d_max - L2), d the distance from D_i to the elbow
    circle; the scan resolves d to < 1e-10 m."""
    g = GEOMETRIES[name]
    k = DeltaKinematics(g)
    lo, hi = map(np.asarray, BOXES[name])
    X = lo + (hi - lo) * np.random.default_rng(13).uniform(size=(15, 3))
    X = np.vstack([X, [[0.6, 0.0, 0.9], [0.0, 0.0, 0.05]]])
    m = k.reachability_margin(X)
    for n in range(len(X)):
        for leg in range(3):
            dmin, dmax = elbow_circle_distance_range(g, X[n], leg)
            expected = min(g.lower_length - dmin, dmax - g.lower_length)
            assert abs(m[n, leg] - expected) < 1e-9
    np.testing.assert_array_equal(k.is_reachable(X), np.all(m >= 0, axis=1))


# ------------------------------------------------------------------ singularities


def boundary_family(delta: float) -> np.ndarray:
    """Kuo robot, leg 1 at q1 = -1.5 rad (elbow nearly straight down) with its lower link
    at 75 deg from the upper link's direction towards the motor axis, so that
    U_1 . T_1 = 0 (a serial singularity on the workspace boundary), then D_1 pulled
    ``delta`` m towards B_1: a point inside the workspace by ~delta (legs 2, 3 reach it
    with margins > 0.1 m)."""
    g = KUO
    e, n = g.radial[0], g.axes[0]
    A = g.base_radius * e
    q1 = -1.5
    B = A + g.upper_length * (math.cos(q1) * e - math.sin(q1) * EZ)
    u = (B - A) / g.upper_length
    beta = -math.radians(75.0)
    return B + (g.lower_length - delta) * (math.cos(beta) * u + math.sin(beta) * n) - g.platform_radius * e


def test_near_a_serial_singularity_the_condition_number_blows_up():
    """Near the boundary the elbow circle is tangent to the sphere of radius L2 about D_1:
    U_1 . T_1 ~ sqrt(margin), so cond(J) ~ margin^(-1/2): a factor 1000 closer multiplies
    it by sqrt(1000) = 31.6 once in the asymptotic regime (margin <= 1e-5 m here; accept
    29-35 for the O(sqrt(margin)) corrections, measured 32.8 and 31.7)."""
    k = DeltaKinematics(KUO)
    margins, conds = [], []
    for delta in (1e-5, 1e-8, 1e-11):
        X = boundary_family(delta)
        m = k.reachability_margin(X)
        assert abs(m[0] - delta) < 0.01 * delta and min(m[1:]) > 0.1
        margins.append(m[0])
        conds.append(float(quiet_condition(k, X)))
    assert conds[0] > 1e3  # already poorly conditioned 10 um from the boundary
    for c_far, c_near in itertools.pairwise(conds):
        assert 29 < c_near / c_far < 35


def test_near_singular_point_warns_with_the_condition_number():
    k = DeltaKinematics(KUO)  # default levels: warn above 1e3, raise above 1e8
    X = boundary_family(1e-6)
    c = float(quiet_condition(k, X))
    assert 1e3 < c < 1e8
    for call in (lambda: k.state(X), lambda: k.check_singularity(X), lambda: k.jacobian(X)):
        with pytest.warns(SingularityWarning, match=re.escape(f"{c:.3g}")):
            call()
    # a well-conditioned point does not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularityWarning)
        k.state(CENTRES["kuo2016"])


def test_singular_point_raises_with_the_condition_number():
    k = DeltaKinematics(KUO, warn_condition=10.0, max_condition=1e5)
    X = boundary_family(1e-11)
    c = float(quiet_condition(k, X))
    assert c > 1e6
    for call in (lambda: k.state(X), lambda: k.check_singularity(X)):
        with pytest.raises(SingularConfigurationError) as info:
            call()
        err = info.value
        assert isinstance(err, ValueError)
        assert err.condition == pytest.approx(c, rel=1e-9)
        assert f"{c:.3g}" in str(err) and "condition number" in str(err)
    # between the two levels: a warning, and the returned condition numbers
    with pytest.warns(SingularityWarning):
        out = k.check_singularity(boundary_family(1e-3))
    assert 10.0 < out[0] < 1e5


def test_exact_serial_singularity_raises_singular_configuration_error():
    k = DeltaKinematics(KUO)
    q1 = -1.5
    e, n = KUO.radial[0], KUO.axes[0]
    B = KUO.base_radius * e + KUO.upper_length * (math.cos(q1) * e - math.sin(q1) * EZ)
    X = B - KUO.lower_length * n - KUO.platform_radius * e  # U_1 = -L2 n_1, T_1 . n_1 = 0
    assert k.is_reachable(X)
    with pytest.raises(SingularConfigurationError):
        k.state(X)


def test_all_legs_stretched_is_detected_as_singular():
    k = DeltaKinematics(KUO)
    g = KUO
    X = np.array([0.0, 0.0, math.sqrt((g.upper_length + g.lower_length) ** 2 - g.offset**2)])
    assert k.is_reachable(X)
    with pytest.raises(SingularConfigurationError):
        k.state(X)


@pytest.mark.parametrize("name", GEOMETRIES)
def test_condition_number_inside_the_workspace(name):
    """>= 1 and finite inside the workspace, equal to max(numpy's 2-norm condition number
    of the state's J, 1 / min_i |U_i . T_i| / (L1 L2)) (SVD ratios: 1e-10 relative)."""
    k = kin(name)
    lo, hi = map(np.asarray, BOXES[name])
    X = lo + (hi - lo) * np.random.default_rng(14).uniform(size=(500, 3))
    X = X[k.is_reachable(X)]
    X = X[np.min(k.reachability_margin(X), axis=1) > 1e-3]  # strictly inside
    assert len(X) > 300
    c = quiet_condition(k, X)
    assert np.all(np.isfinite(c)) and np.all(c >= 1.0)
    assert np.all(c > 1.0 + 1e-6)  # no isotropic point in a random sample
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        st = k.state(X)
    cos_min = np.abs(np.einsum("nij,nij->ni", st.U, st.T)).min(axis=1) / (
        k.geometry.upper_length * k.geometry.lower_length)
    np.testing.assert_allclose(c, np.maximum(np.linalg.cond(st.J), 1.0 / cos_min), rtol=1e-10)
    assert np.ndim(k.condition_number(X[0])) == 0


# ------------------------------------------------------------------ bad input

BAD_GEOMETRY = [
    ("base_radius", lambda: DeltaGeometry(-0.1, 0.05, 0.5, 0.6)),
    ("base_radius", lambda: DeltaGeometry(0.0, 0.05, 0.5, 0.6)),
    ("platform_radius", lambda: DeltaGeometry(0.1, -0.05, 0.5, 0.6)),
    ("upper_length", lambda: DeltaGeometry(0.1, 0.05, -0.5, 0.6)),
    ("upper_length", lambda: DeltaGeometry(0.1, 0.05, float("nan"), 0.6)),
    ("lower_length", lambda: DeltaGeometry(0.1, 0.05, 0.5, 0.0)),
    ("lower_length", lambda: DeltaGeometry(0.1, 0.05, 0.5, float("inf"))),
    ("leg_angles", lambda: DeltaGeometry(0.1, 0.05, 0.5, 0.6, (0.0, float("nan"), 1.0))),
    ("convention", lambda: DeltaGeometry(0.1, 0.05, 0.5, 0.6, convention="kuo")),
    ("convention", lambda: DeltaGeometry(0.1, 0.05, 0.5, 0.6, convention="Asadi2020")),
    ("phi", lambda: DeltaGeometry.from_asadi(0.2, 0.2, 0.2, 0.52, phi=(0.0, float("inf"), 1.0))),
    ("lower_length", lambda: DeltaGeometry.from_asadi(0.2, 0.2, 0.2, -0.52)),
    ("warn_condition", lambda: DeltaKinematics(KUO, warn_condition=1.0)),
    ("warn_condition", lambda: DeltaKinematics(KUO, warn_condition=1e9, max_condition=1e8)),
    ("geometry", lambda: DeltaKinematics("kuo2016")),
    ("branch", lambda: DeltaKinematics(KUO).inverse_kinematics((0.0, 0.0, 0.5), "up")),
    ("branch", lambda: DeltaKinematics(KUO).inverse_kinematics((0.0, 0.0, 0.5), ("out", "in"))),
    ("branch", lambda: DeltaKinematics(KUO).forward_kinematics((0.0, 0.0, 0.0), "down")),
    ("X", lambda: DeltaKinematics(KUO).inverse_kinematics((0.0, float("nan"), 0.5))),
    ("q", lambda: DeltaKinematics(KUO).forward_kinematics((0.0, 0.0, 3.0))),
]


@pytest.mark.parametrize("name, build", BAD_GEOMETRY,
                         ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD_GEOMETRY)])
def test_bad_input_raises_value_error_naming_the_parameter(name, build):
    with pytest.raises(ValueError, match=rf"^invalid {re.escape(name)}\b") as info:
        build()
    assert isinstance(info.value, InputError)
    assert info.value.name == name


@pytest.mark.parametrize("build", [
    lambda: DeltaGeometry(0.1, 0.05, 0.5, 0.6, (0.0, 1.0)),
    lambda: DeltaKinematics(KUO).inverse_kinematics((0.0, 0.5)),
    lambda: DeltaKinematics(KUO).state(np.zeros((2, 3)) + [0, 0, 0.5], Xd=np.zeros((3, 3))),
    lambda: RigidDelta(KUO, DeltaMasses(0.5), Friction(), (0.0, 9.81)),
])
def test_wrong_shapes_raise_dimension_error(build):
    with pytest.raises(DimensionError):
        build()
