"""Self-checks of the independent Delta frame reference (tests/references/reference_delta_frame.py).

The reference assembles the flexible Delta robot of Kuo 2016 at a frozen pose from the
element matrices only; these tests check it against facts that do not depend on its own
assembly: inverse kinematics values, rigid-body invariance, mass and weight totals,
constraint counting, C3 symmetry, closed-form / rigid-body statics of the statically
determinate (universal-universal) leg, global equilibrium, Rayleigh-Ritz monotonicity and
the min-max bracketing of the geometric stiffness.

Tolerances: the models are assembled and reduced in double precision; quantities that
are exact in exact arithmetic (equilibria, symmetries, invariances) are checked with
relative tolerances of 1e-9 or looser, at least ~1e3 above the observed round-off
(typically 1e-13 .. 1e-11) and many orders below any physical effect.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla


def _load_reference():
    """Import tests/references/reference_delta_frame.py by file path (independent of sys.path)."""
    name = "reference_delta_frame"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("reference_delta_frame.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


ref = _load_reference()

X_KUO = (0.1, 0.0, 0.5)        # the non-symmetric pose of the brief
X_SYM = (0.0, 0.0, 0.5)        # the 3-fold symmetric pose
RHO_A = ref.MATERIAL.rho * ref.SECTION.area           # link mass per length [kg/m]
W_LOWER = RHO_A * ref.L2 * np.linalg.norm(ref.G_VEC)  # lower link weight [N]
W_UPPER = RHO_A * ref.L1 * np.linalg.norm(ref.G_VEC)  # upper link weight [N]
TOTAL_MASS = 3 * RHO_A * (ref.L1 + ref.L2) + ref.M_PLATFORM


def _node_positions(model):
    """World position of every node block (dict: first dof -> point)."""
    pos = {}
    n = model["n"]
    for i, leg in enumerate(model["legs"]):
        for k, (P0, P1) in enumerate(((leg["A"], leg["B"]), (leg["B"], leg["D"]))):
            for j in range(n + 1):
                pos[model["node"](i, k, j)] = P0 + (j / n) * (P1 - P0)
    return pos


def _rigid_motion(model, X, t, theta):
    """Full dof vector of the small rigid motion (translation t, rotation theta) of the
    whole robot (links and platform): translations t + theta x p, rotations theta,
    derivative (strain / curvature) dofs zero."""
    z = np.zeros(model["N"])
    for b, p in _node_positions(model).items():
        z[b:b + 3] = t + np.cross(theta, p)
        z[b + 3:b + 6] = theta
    p0 = model["platform"]
    z[p0:p0 + 3] = t + np.cross(theta, np.asarray(X, float))
    z[p0 + 3:p0 + 6] = theta
    return z


# ---------------------------------------------------------------------------------------
# Kinematics
# ---------------------------------------------------------------------------------------
def test_inverse_kinematics_kuo_pose():
    q = np.rad2deg(ref.inverse_kinematics(X_KUO))
    # The brief gives the angles to 0.01 deg.
    np.testing.assert_allclose(q, [-10.76, -29.30, -29.30], atol=0.01)


@pytest.mark.parametrize("X", [X_KUO, X_SYM, (-0.07, 0.12, 0.62)])
def test_leg_geometry_closes_and_frames_are_orthonormal(X):
    for leg in ref.leg_geometry(X):
        # Loop closure and link lengths: exact up to round-off of O(1) quantities.
        assert abs(np.linalg.norm(leg["D"] - leg["B"]) - ref.L2) < 1e-12
        assert abs(np.linalg.norm(leg["B"] - leg["A"]) - ref.L1) < 1e-12
        # Elbows-out branch: rho_B zeta - zeta_B rho > 0 in the leg plane.
        Pp = np.asarray(X) - (ref.R_A - ref.R_B) * leg["e"]
        rho, zeta = Pp @ leg["e"], Pp[2]
        assert np.cos(leg["q"]) * zeta + np.sin(leg["q"]) * rho > 0
        for R in (leg["R_u"], leg["R_l"]):
            np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)
            assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-14)
        np.testing.assert_allclose(leg["R_u"][:, 1], leg["y"], atol=1e-15)
        assert abs(leg["R_l"][:, 2] @ leg["y"]) < 1e-15  # z_l is normal to the motor axis


# ---------------------------------------------------------------------------------------
# Unconstrained assembly: invariances and totals
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("order,n", [("cubic", 1), ("cubic", 2), ("quintic", 2)])
def test_assembly_rigid_body_invariance_and_totals(order, n):
    model = ref.assemble(X_KUO, n, order)
    rng = np.random.default_rng(7)
    t, theta = rng.normal(size=3), rng.normal(size=3)
    z = _rigid_motion(model, X_KUO, t, theta)
    K, M, f = model["K_el"], model["M"], model["f"]
    # A rigid motion strains nothing: |K z| is round-off of the transformed element
    # matrices, ~1e-16 |K| |z|; 1e-12 leaves a large margin and catches any wrong R / R^T.
    assert np.linalg.norm(K @ z) <= 1e-12 * np.linalg.norm(K, 2) * np.linalg.norm(z)
    # Kinetic energy of a unit translation = total mass (links + platform).
    zt = _rigid_motion(model, X_KUO, np.array([0.3, -0.4, 12.0 / 13.0]), np.zeros(3))
    zt /= np.linalg.norm(zt[model["platform"]:model["platform"] + 3])
    assert zt @ M @ zt == pytest.approx(TOTAL_MASS, rel=1e-12)
    # Virtual work of the consistent gravity loads on a rigid motion = exact resultant
    # (weight) and exact moment (link weights act at the link midpoints).
    G = ref.G_VEC
    moment = ref.M_PLATFORM * np.cross(X_KUO, G)
    for leg in model["legs"]:
        moment += RHO_A * ref.L1 * np.cross(0.5 * (leg["A"] + leg["B"]), G)
        moment += RHO_A * ref.L2 * np.cross(0.5 * (leg["B"] + leg["D"]), G)
    expected = t @ (TOTAL_MASS * G) + theta @ moment
    assert f @ z == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("joint_b,joint_d", [("universal", "universal"),
                                             ("clamped", "clamped"),
                                             ("spherical", "universal")])
def test_joint_rows_admit_rigid_motions_and_the_right_axes(joint_b, joint_d):
    model = ref.assemble(X_KUO, 2, "cubic", joint_b, joint_d)
    C, labels = model["C"], model["row_labels"]
    joint = np.array([lab[0] in "BD" for lab in labels])
    z = _rigid_motion(model, X_KUO, np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7, -1.1]))
    # The joints (not the clamps) must let the whole robot move rigidly (exact up to the
    # round-off of O(1) products; 1e-13 of |z|).
    assert np.max(np.abs(C[joint] @ z)) < 1e-13 * np.max(np.abs(z))
    assert np.max(np.abs(C[~joint] @ z)) > 0.1
    # Relative rotation of the lower link's node at B alone, about each candidate axis.
    n = model["n"]
    for i, leg in enumerate(model["legs"]):
        y, zl = leg["y"], leg["R_l"][:, 2]
        for node, kind in ((model["node"](i, 1, 0), joint_b), (model["node"](i, 1, n), joint_d)):
            for axis, allowed in ((y, kind != "clamped"), (zl, kind != "clamped"),
                                  (np.cross(y, zl), kind == "spherical")):
                dz = np.zeros(model["N"])
                dz[node + 3:node + 6] = axis
                # allowed: exactly orthogonal unit vectors (residual ~1e-17); forbidden:
                # a residual of order 1.
                assert (np.max(np.abs(C @ dz)) < 1e-12) == allowed, (i, node, kind, axis)


# ---------------------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------------------
_ROT_ROWS = {"clamped": 3, "universal": 1, "spherical": 0}
# Mechanisms (zero-energy motions; the upper links are elastic cantilevers, so B_i is
# fixed in such a motion and the lower links / platform can only move rigidly):
# * U-U: each leg allows the platform 4 rigid freedoms (2 + 2 joint axes) -> 2 constraints
#   per leg, 6 in all: none.  Clamped at B or D: even more constrained: none.
# * universal at B, spherical at D: the lower link swings about B_i (axes y_i, z_l), so D_i
#   moves freely on the sphere about B_i -> one constraint per leg -> 3 platform
#   mechanisms; the lower link's spin is blocked by the universal joint at B.
# * spherical at B, universal at D: same count (the spin is carried by the platform).
# * clamped at B, spherical at D: upper + lower link form one elastic cantilever, D_i is
#   fixed, and a rigid platform on three fixed non-collinear points D_i cannot move: none.
# * spherical at B, clamped at D: the platform must rotate about three points B_i: none.
# * spherical at both: 3 platform mechanisms + 3 lower-link spins about B_i D_i = 6.
_MECHANISMS = {("clamped", "clamped"): 0, ("clamped", "universal"): 0,
               ("clamped", "spherical"): 0, ("universal", "clamped"): 0,
               ("universal", "universal"): 0, ("universal", "spherical"): 3,
               ("spherical", "clamped"): 0, ("spherical", "universal"): 3,
               ("spherical", "spherical"): 6}


@pytest.mark.parametrize("joint_b,joint_d", list(_MECHANISMS))
def test_dof_and_mechanism_counts(joint_b, joint_d):
    out = ref.frame_delta(X_KUO, joint_b=joint_b, joint_d=joint_d, preload=False)
    # n = 1 cubic: 3 legs x 2 links x 2 nodes x 6 + 6 platform = 78 dofs, minus per leg
    # 6 (clamp) + 3 + 3 (translations at B, D) + rotation rows.
    rows = 3 * (12 + _ROT_ROWS[joint_b] + _ROT_ROWS[joint_d])
    assert out["dof"] == 78 - rows
    assert out["mechanisms"] == _MECHANISMS[(joint_b, joint_d)]
    if out["mechanisms"]:
        # Singular K (preload=False: K = K_el): no static solution is reported.
        assert np.all(np.isnan(out["platform_static"]))
        assert np.all(out["omega_rad_s"][:out["mechanisms"]] == 0.0)
    else:
        assert np.all(np.isfinite(out["platform_static"]))


def test_counts_of_the_brief():
    assert ref.frame_delta(X_KUO)["dof"] == 36
    assert ref.frame_delta(X_KUO, joint_d="clamped")["dof"] == 30


@pytest.mark.parametrize("order,n", [("cubic", 2), ("quintic", 1)])
@pytest.mark.parametrize("joints", [("universal", "spherical"), ("spherical", "spherical")])
def test_mechanism_count_is_mesh_independent(order, n, joints):
    out = ref.frame_delta(X_KUO, n_elements=n, order=order, joint_b=joints[0],
                          joint_d=joints[1], preload=False)
    assert out["mechanisms"] == _MECHANISMS[joints]
    # and the dof count: nodes x node dofs + platform - constraint rows
    nd = 6 if order == "cubic" else 10
    rows = 3 * (12 + _ROT_ROWS[joints[0]] + _ROT_ROWS[joints[1]])
    assert out["dof"] == 6 * (n + 1) * nd + 6 - rows


# ---------------------------------------------------------------------------------------
# Symmetric pose
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("joint_d,n_single,n_double", [("universal", 12, 12),
                                                      ("clamped", 10, 10)])
def test_symmetric_pose_spectrum_has_c3_structure(joint_d, n_single, n_double):
    """C3 symmetry: every eigenvalue is simple (symmetric representation) or double (the
    2-d representation).  The dof space is 3 copies of one leg's (dof - 6) / 3 dofs (one
    symmetric + one pair each) plus the platform (Z, rotation about Z symmetric; the X-Y
    translations and the X-Y rotations two pairs)."""
    out = ref.frame_delta(X_SYM, joint_d=joint_d, count=10**6)
    lam = out["eigenvalues"]
    per_leg = (out["dof"] - 6) // 3
    assert (n_single, n_double) == (per_leg + 2, per_leg + 2)
    gaps = np.diff(lam) / lam[1:]
    # Degenerate pairs are equal to round-off (observed <= 5e-11); the closest physically
    # distinct eigenvalues differ by >= 1.5e-5 (nearly uncoupled legs).  1e-8 separates them.
    tied = gaps < 1e-8
    assert not np.any(tied[1:] & tied[:-1]), "no triple eigenvalue"
    assert np.sum(tied) == n_double
    assert len(lam) - 2 * np.sum(tied) == n_single
    assert np.all(gaps[~tied] > 1e-6)


@pytest.mark.parametrize("joint_d", ["universal", "clamped"])
@pytest.mark.parametrize("preload", [True, False])
def test_symmetric_pose_static_displacement_is_vertical(joint_d, preload):
    s = ref.frame_delta(X_SYM, joint_d=joint_d, preload=preload)["platform_static"]
    assert s[2] > 0.0  # sags downwards (Z down), ~2 cm for these slender links
    # X, Y translations and all rotations vanish by symmetry; observed <= 1e-11 relative
    # to dz ~ 2e-2 m: 1e-9 relative (rotations scaled by the platform radius).
    assert np.max(np.abs(s[:2])) < 1e-9 * s[2]
    assert np.max(np.abs(s[3:])) * ref.R_B < 1e-9 * s[2]


def test_symmetric_pose_axial_forces_closed_form():
    """At the symmetric pose x_l is normal to the motor axis, so y_i x z_l = x_l: both
    universal joints of a lower link transmit only torsion -> the lower link is pin-ended.
    Its end shear is then half its transverse weight, and the platform's vertical balance
    3 (N_D x_lz - W_l (1 - x_lz^2) / 2) = m g gives N_D.  The force on the upper link at B
    is F_D + W_l ez (lower link equilibrium), whose component along x_u is N_B."""
    out = ref.frame_delta(X_SYM)
    g = np.linalg.norm(ref.G_VEC)
    ez = np.array([0.0, 0.0, 1.0])
    for leg, (N_B, N_D) in zip(ref.leg_geometry(X_SYM), out["axial_end_force"]):
        xl, xu = leg["R_l"][:, 0], leg["R_u"][:, 0]
        xlz = xl[2]
        N_D_exact = (ref.M_PLATFORM * g / 3 + 0.5 * W_LOWER * (1 - xlz**2)) / xlz
        F_D = N_D_exact * xl - 0.5 * W_LOWER * (ez - xlz * xl)   # force on the link at D
        N_B_exact = (F_D + W_LOWER * ez) @ xu
        # Exact statics (determinate structure) up to the round-off of recovering forces
        # of ~1 N from K_e u_e (entries ~1e7 N/m): observed ~1e-11 relative.
        assert N_D == pytest.approx(N_D_exact, rel=1e-8)
        assert N_B == pytest.approx(N_B_exact, rel=1e-8)


# ---------------------------------------------------------------------------------------
# Statics of the determinate universal-universal robot at a general pose
# ---------------------------------------------------------------------------------------
def _rigid_body_statics(X, rho_a_lower=RHO_A, loads=((ref.M_PLATFORM, np.zeros(3)),)):
    """Independent statics with rigid lower links and platform (linear, undeformed
    geometry).  Unknowns per leg: F_B, F_D (forces on the lower link at B and D), mu_B,
    mu_D (moments along the universal joints' normals n_B = y x z_l, n_D = z_l x y).
    Equations: each lower link's force and moment (about B) balance, the platform's force
    and moment (about P) balance: 18 + 6 = 24 for 24 unknowns (isostatic robot).
    ``rho_a_lower``: lower-link mass per length [kg/m]; ``loads``: (mass, offset of its
    centre of mass from P) of the bodies the platform carries (their weights)."""
    legs = ref.leg_geometry(X)
    A = np.zeros((24, 24))
    b = np.zeros(24)
    P = np.asarray(X, float)
    G = ref.G_VEC
    RHO_A = rho_a_lower  # noqa: N806 (the module constant's name, here a parameter)
    for i, leg in enumerate(legs):
        c = 8 * i                         # unknown columns: F_B(3) mu_B F_D(3) mu_D
        y, zl = leg["y"], leg["R_l"][:, 2]
        nB, nD = np.cross(y, zl), np.cross(zl, y)
        rBD = leg["D"] - leg["B"]
        r0 = 6 * i
        # forces on the lower link: F_B + F_D + W_l = 0
        A[r0:r0 + 3, c:c + 3] = np.eye(3)
        A[r0:r0 + 3, c + 4:c + 7] = np.eye(3)
        b[r0:r0 + 3] = -RHO_A * ref.L2 * G
        # moments about B: mu_B nB + mu_D nD + rBD x F_D + rBD/2 x W_l = 0
        A[r0 + 3:r0 + 6, c + 3] = nB
        A[r0 + 3:r0 + 6, c + 7] = nD
        A[r0 + 3:r0 + 6, c + 4:c + 7] = ref._skew(rBD)
        b[r0 + 3:r0 + 6] = -np.cross(0.5 * rBD, RHO_A * ref.L2 * G)
        # platform: -sum F_D + m g = 0; -sum (r x F_D + mu_D nD) = 0 about P
        A[18:21, c + 4:c + 7] = -np.eye(3)
        A[21:24, c + 4:c + 7] = -ref._skew(leg["D"] - P)
        A[21:24, c + 7] = -nD
    for m, c in loads:
        b[18:21] -= m * G
        b[21:24] -= np.cross(c, m * G)
    sol = np.linalg.solve(A, b)
    out = []
    for i, leg in enumerate(legs):
        c = 8 * i
        F_B, F_D = sol[c:c + 3], sol[c + 4:c + 7]
        out.append(dict(F_D=F_D, M_D=sol[c + 7] * np.cross(leg["R_l"][:, 2], leg["y"]),
                        N_B=-F_B @ leg["R_u"][:, 0], N_D=F_D @ leg["R_l"][:, 0]))
    return out


@pytest.mark.parametrize("X", [X_KUO, (-0.07, 0.12, 0.62)])
@pytest.mark.parametrize("order,n", [("cubic", 1), ("cubic", 3), ("quintic", 1)])
def test_axial_forces_match_rigid_body_statics(X, order, n):
    out = ref.frame_delta(X, n_elements=n, order=order, preload=False)
    for i, exact in enumerate(_rigid_body_statics(X)):
        scale = np.linalg.norm(exact["F_D"])
        # Same round-off argument as the closed-form test (observed <= 2e-10 relative,
        # largest for the finer mesh n = 3).
        assert out["axial_end_force"][i, 1] == pytest.approx(exact["N_D"], rel=1e-8)
        assert out["axial_end_force"][i, 0] == pytest.approx(exact["N_B"], abs=1e-8 * scale)
        np.testing.assert_allclose(out["end_wrench"][i, 1, :3], exact["F_D"],
                                   atol=1e-8 * scale)
        np.testing.assert_allclose(out["end_wrench"][i, 1, 3:], exact["M_D"],
                                   atol=1e-8 * scale * ref.L2)


@pytest.mark.parametrize("joint_b,joint_d", [("universal", "universal"),
                                             ("universal", "clamped"),
                                             ("clamped", "clamped")])
def test_global_and_platform_equilibrium(joint_b, joint_d):
    """Ground reactions balance the total weight (force and moment about O), and the lower
    links' end wrenches balance the platform weight (also for the hyperstatic clamped
    joints, where no closed form exists)."""
    out = ref.frame_delta(X_KUO, n_elements=2, joint_b=joint_b, joint_d=joint_d)
    G = ref.G_VEC
    W = TOTAL_MASS * np.linalg.norm(G)
    legs = ref.leg_geometry(X_KUO)
    F = out["reaction_A"][:, :3].sum(axis=0) + TOTAL_MASS * G
    Mo = ref.M_PLATFORM * np.cross(X_KUO, G)
    for leg, r in zip(legs, out["reaction_A"]):
        Mo += r[3:] + np.cross(leg["A"], r[:3])
        Mo += RHO_A * ref.L1 * np.cross(0.5 * (leg["A"] + leg["B"]), G)
        Mo += RHO_A * ref.L2 * np.cross(0.5 * (leg["B"] + leg["D"]), G)
    # Exact balances up to round-off (observed <= 2e-11 W); 1e-9 W (and W x 1 m).
    assert np.linalg.norm(F) < 1e-9 * W
    assert np.linalg.norm(Mo) < 1e-9 * W
    # Platform: sum of the forces the links get from it equals its weight; moments about P.
    w = out["end_wrench"][:, 1]
    np.testing.assert_allclose(w[:, :3].sum(axis=0), ref.M_PLATFORM * G, atol=1e-9 * W)
    Mp = sum(wi[3:] + np.cross(leg["D"] - np.asarray(X_KUO), wi[:3]) for wi, leg in zip(w, legs))
    assert np.linalg.norm(Mp) < 1e-9 * W * ref.R_B


# ---------------------------------------------------------------------------------------
# Convergence
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("preload", [False, True])
def test_frequencies_decrease_with_mesh_refinement(preload):
    """Rayleigh-Ritz on nested spaces (n = 1, 2, 4 cubic; and cubic n = 1 inside quintic
    n = 1, whose derivative dofs are free) gives non-increasing eigenvalues for the same
    operator.  With preload the operator is the same on every mesh for universal joints:
    the axial forces are statically determinate and N(x) = N_r + rho A g_x (l - x) is the
    exact field (checked by test_axial_forces_match_rigid_body_statics)."""
    f = [ref.frame_delta(X_KUO, n_elements=n, preload=preload)["omega_rad_s"]
         for n in (1, 2, 4)]
    fq = ref.frame_delta(X_KUO, order="quintic", preload=preload)["omega_rad_s"]
    # 1e-10 relative slack for round-off only (observed decreases >= 5e-6 relative).
    for coarse, fine in ((f[0], f[1]), (f[1], f[2]), (f[0], fq)):
        assert np.all(fine <= coarse * (1 + 1e-10))
    # and it has converged: n = 4 is within 0.1 % of quintic n = 1 (observed 3e-5)
    np.testing.assert_allclose(f[2], fq, rtol=1e-3)


# ---------------------------------------------------------------------------------------
# Preload
# ---------------------------------------------------------------------------------------
def test_link_forces_are_tension_below_and_compression_above():
    """Hanging platform: the lower links are in tension; the elbows-out upper links are
    pushed back towards the motor (compression) by the inward-pulling lower links."""
    out = ref.frame_delta(X_KUO)
    for leg, (N_B, N_D) in zip(ref.leg_geometry(X_KUO), out["axial_end_force"]):
        gx_u = ref.G_VEC @ leg["R_u"][:, 0]
        gx_l = ref.G_VEC @ leg["R_l"][:, 0]
        assert gx_l > 0 and N_D > 0          # N(x) >= N_D > 0 along the whole lower link
        assert N_B + RHO_A * gx_u * ref.L1 < 0 and N_B < 0   # N(x) < 0 along the upper link


def test_geometric_stiffness_brackets_the_spectrum():
    """Min-max principle: adding the (positive semi-definite) tension K_g of the lower links
    raises every eigenvalue; adding the (negative semi-definite) compression K_g of the
    upper links lowers every eigenvalue."""
    out = ref.frame_delta(X_KUO, count=10**6)
    model = out["model"]
    Z = model["Z"]
    Kr, Mr = Z.T @ model["K_el"] @ Z, Z.T @ model["M"] @ Z
    Kg_up, Kg_low = (Z.T @ k @ Z for k in out["K_g_links"])
    lam_el = sla.eigh(Kr, Mr, eigvals_only=True)
    lam_low = sla.eigh(Kr + Kg_low, Mr, eigvals_only=True)
    lam_up = sla.eigh(Kr + Kg_up, Mr, eigvals_only=True)
    assert np.min(sla.eigvalsh(Kg_low)) > -1e-12 * np.max(np.abs(sla.eigvalsh(Kg_low)))
    assert np.max(sla.eigvalsh(Kg_up)) < 1e-12 * np.max(np.abs(sla.eigvalsh(Kg_up)))
    # Eigenvalue round-off ~1e-16 lambda_max (~1e13): absolute slack 1e-12 lambda_max.
    slack = 1e-12 * lam_el[-1]
    assert np.all(lam_low >= lam_el - slack)
    assert np.all(lam_up <= lam_el + slack)
    # Total preload = both; its eigenvalues agree with the reference's own output up to
    # the round-off of the lowest eigenvalues, ~eps lambda_max / lambda_1 ~ 1e-10.
    lam_pre = sla.eigh(Kr + Kg_up + Kg_low, Mr, eigvals_only=True)
    np.testing.assert_allclose(np.sqrt(lam_pre), out["omega_rad_s"], rtol=1e-8)


@pytest.mark.parametrize("joint_d,lowers", [("universal", True), ("clamped", False)])
def test_preload_effect_on_the_lowest_frequency(joint_d, lowers):
    """The links are NOT all in tension (upper links in compression), so preload does not
    stiffen every mode.  At X_KUO the lowest frequency drops with preload for U-U joints
    (3.2707 -> 3.2615 Hz) and rises with a clamped platform joint (3.7277 -> 3.7405 Hz).
    The sign is that of the modal geometric energy phi_1^T K_g phi_1 (first order)."""
    on = ref.frame_delta(X_KUO, joint_d=joint_d, preload=True)
    off = ref.frame_delta(X_KUO, joint_d=joint_d, preload=False)
    d = on["omega_rad_s"][0] - off["omega_rad_s"][0]
    model = off["model"]
    Z = model["Z"]
    _, V = sla.eigh(Z.T @ model["K_el"] @ Z, Z.T @ model["M"] @ Z)
    energy = V[:, 0] @ (Z.T @ on["K_g_links"].sum(axis=0) @ Z) @ V[:, 0]
    assert np.sign(d) == np.sign(energy) == (-1 if lowers else 1)
    # The effect is small (< 1 %): the preload is a few newtons.
    assert abs(d) < 0.01 * off["omega_rad_s"][0]


# ---------------------------------------------------------------------------------------
# Output sanity
# ---------------------------------------------------------------------------------------
def test_outputs_shapes_and_preload_independent_forces():
    on = ref.frame_delta(X_KUO, count=5)
    off = ref.frame_delta(X_KUO, preload=False, count=5)
    assert on["omega_rad_s"].shape == (5,)
    assert on["platform_static"].shape == (6,)
    assert on["axial_end_force"].shape == (3, 2)
    assert on["elbow_angles_rad"].shape == (3,)
    # Step-2 forces come from the elastic solution whatever the preload flag.
    np.testing.assert_array_equal(on["axial_end_force"], off["axial_end_force"])
    assert not np.any(off["K_g_links"])
    # legs 1 and 2 are mirror images at X_KUO (y = 0): equal forces (round-off).
    np.testing.assert_allclose(on["axial_end_force"][1], on["axial_end_force"][2], rtol=1e-9)


# ---------------------------------------------------------------------------------------
# Distinct upper / lower links and rigid bodies on their own nodes
# ---------------------------------------------------------------------------------------
ALU = ref.Material(E=70e9, G=26e9, rho=2700.0)
UPPER = (ref.Section.circle(10e-3), ALU)                   # 10 mm round aluminium
LOWER = (ref.Section.rectangle(8e-3, 4e-3), ref.STEEL)     # 8 x 4 mm steel
RHO_A_UP = ALU.rho * UPPER[0].area
RHO_A_LOW = ref.STEEL.rho * LOWER[0].area
PAYLOAD = (0.3, np.array([0.04, -0.02, 0.03]),
           np.array([[4e-4, 1e-5, -2e-5], [1e-5, 3e-4, 3e-5], [-2e-5, 3e-5, 5e-4]]))
DISC = (ref.M_PLATFORM, np.zeros(3), ref.platform_inertia())


def test_a_body_node_at_p_equals_the_lumped_disc():
    """The disc as a separate body node tied to P (constraints) against the disc lumped
    on the P dofs: the same structure, so the same spectrum, sag and forces (round-off of
    the reduction: 1e-9 relative)."""
    a = ref.frame_delta(X_KUO, n_elements=2)
    b = ref.frame_delta(X_KUO, n_elements=2, bodies=[DISC])
    assert a["dof"] == b["dof"]
    np.testing.assert_allclose(b["omega_rad_s"], a["omega_rad_s"], rtol=1e-9)
    np.testing.assert_allclose(b["platform_static"], a["platform_static"], rtol=1e-9,
                               atol=1e-9 * np.abs(a["platform_static"]).max())
    np.testing.assert_allclose(b["axial_end_force"], a["axial_end_force"], rtol=1e-9)


def test_bodies_and_link_groups_rigid_motion_totals():
    """Unit rigid translation: kinetic energy = total mass (aluminium upper links, steel
    lower links, disc and payload on their own nodes); rigid motion: virtual work of the
    gravity loads = weight resultant and moment, each body's weight at its own centre of
    mass (X + c). Exact in exact arithmetic: 1e-12."""
    bodies = [DISC, PAYLOAD]
    model = ref.assemble(X_KUO, 2, "cubic", upper=UPPER, lower=LOWER, bodies=bodies)
    total = 3 * (RHO_A_UP * ref.L1 + RHO_A_LOW * ref.L2) + DISC[0] + PAYLOAD[0]
    rng = np.random.default_rng(3)
    t, theta = rng.normal(size=3), rng.normal(size=3)
    z = _rigid_motion(model, X_KUO, t, theta)
    for b0, (_, c, _) in zip(model["bodies"], bodies):   # body nodes move with P
        z[b0:b0 + 3] = t + np.cross(theta, np.asarray(X_KUO) + c)
        z[b0 + 3:b0 + 6] = theta
    joints = np.array([lab[0] in "BDP" for lab in model["row_labels"]])
    assert np.max(np.abs(model["C"][joints] @ z)) < 1e-13 * np.max(np.abs(z))
    G = ref.G_VEC
    moment = sum(m * np.cross(np.asarray(X_KUO) + c, G) for m, c, _ in bodies)
    for leg in model["legs"]:
        moment += RHO_A_UP * ref.L1 * np.cross(0.5 * (leg["A"] + leg["B"]), G)
        moment += RHO_A_LOW * ref.L2 * np.cross(0.5 * (leg["B"] + leg["D"]), G)
    assert model["f"] @ z == pytest.approx(t @ (total * G) + theta @ moment, rel=1e-12)
    zt = _rigid_motion(model, X_KUO, np.array([0.6, 0.0, 0.8]), np.zeros(3))
    for b0 in model["bodies"]:
        zt[b0:b0 + 3] = [0.6, 0.0, 0.8]
    assert zt @ model["M"] @ zt == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("X", [X_KUO, (-0.07, 0.12, 0.62)])
def test_offset_payload_and_link_groups_statics_match_rigid_body_statics(X):
    """Universal joints (isostatic): lower-link forces and the platform joints' moments
    from rigid-body statics with the steel lower links' weight and the payload's weight
    at its offset centre of mass (its moment about P goes into the joints). 1e-8 as in
    test_axial_forces_match_rigid_body_statics."""
    out = ref.frame_delta(X, n_elements=2, preload=False, upper=UPPER, lower=LOWER,
                          bodies=[DISC, PAYLOAD])
    exact = _rigid_body_statics(X, RHO_A_LOW, [(DISC[0], DISC[1]), PAYLOAD[:2]])
    base = _rigid_body_statics(X, RHO_A_LOW, [(DISC[0], DISC[1]), (PAYLOAD[0], np.zeros(3))])
    for i, (e, e0) in enumerate(zip(exact, base)):
        scale = np.linalg.norm(e["F_D"])
        assert out["axial_end_force"][i, 1] == pytest.approx(e["N_D"], rel=1e-8)
        assert out["axial_end_force"][i, 0] == pytest.approx(e["N_B"], abs=1e-8 * scale)
        np.testing.assert_allclose(out["end_wrench"][i, 1, 3:], e["M_D"],
                                   atol=1e-8 * scale * ref.L2)
        # the offset's moment goes into the joints' moments at D (the axial forces of
        # this isostatic robot do not change): by far more than the tolerance
        moment = np.linalg.norm(np.cross(PAYLOAD[1], PAYLOAD[0] * ref.G_VEC))
        assert np.linalg.norm(e["M_D"] - e0["M_D"]) > 0.1 * moment


def test_offset_payload_global_equilibrium_with_tilted_gravity():
    """Hyperstatic clamped joints, gravity not along Z: ground reactions balance every
    weight (links of both groups, disc, payload at X + c), force and moment about O."""
    g = np.array([1.5, -2.0, 9.5])
    out = ref.frame_delta(X_KUO, n_elements=2, joint_b="clamped", joint_d="clamped",
                          upper=UPPER, lower=LOWER, bodies=[DISC, PAYLOAD], gravity=g)
    legs = ref.leg_geometry(X_KUO)
    total = 3 * (RHO_A_UP * ref.L1 + RHO_A_LOW * ref.L2) + DISC[0] + PAYLOAD[0]
    W = total * np.linalg.norm(g)
    F = out["reaction_A"][:, :3].sum(axis=0) + total * g
    Mo = sum(m * np.cross(np.asarray(X_KUO) + c, g) for m, c, _ in (DISC, PAYLOAD))
    for leg, r in zip(legs, out["reaction_A"]):
        Mo += r[3:] + np.cross(leg["A"], r[:3])
        Mo += RHO_A_UP * ref.L1 * np.cross(0.5 * (leg["A"] + leg["B"]), g)
        Mo += RHO_A_LOW * ref.L2 * np.cross(0.5 * (leg["B"] + leg["D"]), g)
    # round-off as in test_global_and_platform_equilibrium
    assert np.linalg.norm(F) < 1e-9 * W
    assert np.linalg.norm(Mo) < 1e-9 * W
