"""KED flexible Delta (Kuo 2016 secs. 3-5): linearized chain, poses, structure of the spectrum.

References independent of the code under test: finite differences of the nonlinear
kinematics (S maps and their time derivatives), rigid-body statics (end forces),
symmetry (repeated frequencies, 120-degree periodicity), Kuo's dof count (eq. 61), mesh
convergence from above (Rayleigh-Ritz bound of conforming elements).
"""
import math

import numpy as np
import scipy.linalg as sla
import pytest

from elastodyn.description.flexible_delta import FlexibleDelta, Platform, flexible_delta_kuo2016
from elastodyn.exceptions import InputError, ModelError
from elastodyn.fem.moving_frame import skew
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.trajectories import Circle

P0 = np.array([0.1, 0.0, 0.5])
JOINT_PAIRS = [(b, d) for b in ("universal", "spherical", "clamped")
               for d in ("universal", "spherical", "clamped")]


@pytest.fixture(scope="module")
def robot():
    return flexible_delta_kuo2016()


def test_platform_disc_inertia():
    p = Platform(0.5, 0.05, 0.05)
    # solid disc: I_zz = m r^2 / 2, I_xx = m (3 r^2 + h^2) / 12
    assert p.inertia == pytest.approx([0.5 * (3 * 0.0025 + 0.0025) / 12] * 2 + [0.5 * 0.0025 / 2])


def test_bad_input_names_parameter(robot):
    with pytest.raises(InputError, match="joint_b"):
        KEDEngine(robot, joint_b="hinge")
    with pytest.raises(InputError, match="elements"):
        KEDEngine(robot, elements=0)
    with pytest.raises(InputError, match="order"):
        KEDEngine(robot, order="linear")
    with pytest.raises(ValueError, match="rayleigh"):
        KEDEngine(robot, rayleigh=(-1.0, 0.0))
    with pytest.raises(InputError, match="robot"):
        KEDEngine("delta-kuo2016")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_dof_count_matches_kuo_eq61(robot, n):
    # Kuo eq. (61): DOF = 6 + 3 (12 n - 4) for his chain (universal at B, clamped at D)
    assert KEDEngine(robot, elements=n, joint_d="clamped").dof == 6 + 3 * (12 * n - 4)
    # universal at D adds two release angles per leg
    assert KEDEngine(robot, elements=n).dof == 6 + 3 * (12 * n - 2)


def test_quintic_dof_count(robot):
    # 10 dofs per node; the first six of the A node are clamped and the first six of
    # both lower-link ends follow from the joints: per leg 10 (2n + 2) - 18 + releases
    n = 2
    m = KEDEngine(robot, elements=n, order="quintic", joint_d="clamped")
    assert m.dof == 6 + 3 * (10 * (2 * n + 2) - 18 + 2)


def _fd_rotation(R1, R0):
    """Small rotation vector of R1 R0^T (first order)."""
    W = R1 @ R0.T
    W = 0.5 * (W - W.T)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


@pytest.mark.parametrize("joints", JOINT_PAIRS)
def test_S_time_derivatives_match_finite_differences(robot, joints):
    """S_dot and S_ddot (analytic, from the links' w and alpha) against central
    differences of S along Kuo's circle; h = 1e-4 s: truncation O(h^2 S''') ~ 1e-7
    relative, round-off eps/h^2 ~ 2e-8."""
    m = KEDEngine(robot, elements=2, joint_b=joints[0], joint_d=joints[1])
    tr = Circle.kuo2016()
    h, t = 1e-4, 0.37
    smp = tr.evaluate(np.array([t - h, t, t + h]))
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    for i in range(3):
        S = [m._lower_S(mo, k, i, 2) for k in range(3)]
        d1 = (S[2][0] - S[0][0]) / (2 * h)
        d2 = (S[2][0] - 2 * S[1][0] + S[0][0]) / h**2
        assert np.abs(d1 - S[1][1]).max() <= 1e-6 * np.abs(S[1][1]).max()
        assert np.abs(d2 - S[1][2]).max() <= 1e-6 * np.abs(S[1][2]).max()


def test_link_angular_velocities_match_frame_rates(robot):
    """R_dot = [w]x R and w_dot = alpha for both links, by central differences."""
    m = KEDEngine(robot)
    tr = Circle.kuo2016()
    h, t = 1e-5, 0.61
    smp = tr.evaluate(np.array([t - h, t, t + h]))
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    for R, w, a in ((mo.Ru, mo.wu, mo.au), (mo.Rl, mo.wl, mo.al)):
        for i in range(3):
            Rd = (R[2, i] - R[0, i]) / (2 * h)
            # O(h^2) truncation ~ 1e-10 and round-off eps/h ~ 2e-11 on O(1) entries
            assert np.abs(Rd - skew(w[1, i]) @ R[1, i]).max() < 1e-8
            assert np.abs((w[2, i] - w[0, i]) / (2 * h) - a[1, i]).max() < 1e-6 * (
                1 + np.abs(a[1, i]).max())


def _rigid_mechanism_delta(m, X, dX, eps=1e-6):
    """Global variables of the infinitesimal rigid motion of the mechanism (free
    actuators) that moves the platform by dX, built from central differences of the
    nonlinear kinematics (independent of the S maps)."""
    mo = m.motion(X)
    mp = m.motion(X + eps * dX)
    mm = m.motion(X - eps * dX)
    dq = (mp.q[0] - mm.q[0]) / (2 * eps)
    dRl = [(_fd_rotation(mp.Rl[0, i], mo.Rl[0, i]) - _fd_rotation(mm.Rl[0, i], mo.Rl[0, i]))
           / (2 * eps) for i in range(3)]
    delta = np.zeros(m.dof)
    delta[0:3] = dX
    lm_u, lm_l = m.links
    nd, n = lm_u.nd, m.n_elements
    for i, c in enumerate(m._chains):
        Rl = mo.Rl[0, i]
        # upper link: rigid rotation dq about the motor axis y (local y): w = -s dq, ry = dq
        qu = np.zeros(lm_u.n_dofs)
        for j in range(n + 1):
            s = j * lm_u.length / n
            qu[j * nd + 2] = -s * dq[i]
            qu[j * nd + 4] = dq[i]
        delta[c["upper_global"]] = qu[c["upper_local"]]
        # releases: relative rotations in the span of the release axes (least squares,
        # exact when the chain is consistent)
        th_u = dq[i] * mo.y[i]
        for key, rel, jn in (("rel_b", dRl[i] - th_u, m.joint_b), ("rel_d", dRl[i], m.joint_d)):
            axes = m._release_axes(jn, mo.y[i], Rl, "B" if key == "rel_b" else "D")
            if not axes:
                assert np.allclose(rel, 0.0, atol=1e-8), "relative rotation not free"
            else:
                Amat = np.stack([a for a, _ in axes], axis=1)
                coef, *_ = np.linalg.lstsq(Amat, rel, rcond=None)
                assert np.allclose(Amat @ coef, rel, atol=1e-8), "relative rotation not free"
                delta[c[key]] = coef
        # lower link interior nodes: rigid field of the lower link
        dB = dq[i] * np.cross(mo.y[i], mo.B[0, i] - mo.A[i])
        ql = np.zeros(lm_l.n_dofs)
        for j in range(n + 1):
            s = j * lm_l.length / n
            ql[j * nd:j * nd + 3] = Rl.T @ (dB + np.cross(dRl[i], s * Rl[:, 0]))
            ql[j * nd + 3:j * nd + 6] = Rl.T @ dRl[i]
        delta[c["lower_global"]] = ql[c["lower_local"]]
    return delta, mo


@pytest.mark.parametrize("joints", [("universal", "universal"), ("universal", "clamped"),
                                    ("spherical", "universal"), ("spherical", "spherical")])
def test_S_maps_rigid_mechanism_motion_to_rigid_nodal_motion(robot, joints):
    """Consistency of the linearized chain: the global variables of a rigid motion of
    the mechanism (free actuators; platform moved by dX) give, through S, nodal values
    of every lower link that (a) strain no element (K_e q = 0) and (b) equal the
    displacement of B_i and D_i and the rotation of the link from finite differences of
    the nonlinear kinematics. Clamped joints at D admit no such motion (the relative
    rotation of lower link and platform is not free) and are covered by the frame model."""
    m = KEDEngine(robot, elements=2, joint_b=joints[0], joint_d=joints[1],
                      actuators="free")
    X = np.array([0.05, -0.08, 0.55])
    for dX in np.eye(3):
        try:
            delta, mo = _rigid_mechanism_delta(m, X, dX)
        except AssertionError:
            assert "clamped" in joints
            continue
        s = m.system(mo, 0)
        eps = 1e-6
        mp, mm = m.motion(X + eps * dX), m.motion(X - eps * dX)
        for i, (qu, ql) in enumerate(m.link_dofs(s, delta)):
            lm = m.links[1]
            # FD error O(eps^2) ~ 1e-12 and round-off eps_mach/eps ~ 1e-10 on O(1) rates
            assert np.abs(lm.Ke @ ql).max() < 1e-9 * np.abs(lm.Ke).max()
            dB = (mp.B[0, i] - mm.B[0, i]) / (2 * eps)
            dD = (mp.D[0, i] - mm.D[0, i]) / (2 * eps)
            Rl = mo.Rl[0, i]
            nd, n = lm.nd, m.n_elements
            np.testing.assert_allclose(ql[0:3], Rl.T @ dB, atol=1e-8)
            np.testing.assert_allclose(ql[n * nd:n * nd + 3], Rl.T @ dD, atol=1e-8)


def test_stiff_mechanism_has_three_zero_modes_with_free_actuators(robot):
    m = KEDEngine(robot, actuators="free", preload=False)
    res = m.modes(P0, count=4)
    assert m.mechanisms == 3
    assert np.count_nonzero(res.omega_rad_s == 0.0) == 3 and res.omega_rad_s[3] > 1.0


@pytest.mark.parametrize("joints,zeros", [(("universal", "universal"), 0),
                                          (("universal", "spherical"), 3),
                                          (("spherical", "universal"), 3),
                                          (("spherical", "spherical"), 6),
                                          (("universal", "clamped"), 0)])
def test_mechanism_modes_without_preload(robot, joints, zeros):
    """Ball joints: one constraint per S-U or S-S leg leaves the platform 3 mechanism
    freedoms; S-S legs also spin freely (Gruebler). Without preload they are exact zeros."""
    m = KEDEngine(robot, joint_b=joints[0], joint_d=joints[1], preload=False)
    res = m.modes(P0, count=zeros + 1)
    assert m.mechanisms == zeros
    assert np.count_nonzero(res.omega_rad_s == 0.0) == zeros
    assert res.omega_rad_s[zeros] > 1.0


def test_symmetric_pose_gives_repeated_frequencies(robot):
    """On the symmetry axis the structure has the 3-fold symmetry of the legs: its
    spectrum is made of simple (symmetric) and double (E-type) eigenvalues. Round-off:
    eigenvalues to ~1e-12 relative; a pair is equal to 1e-8."""
    m = KEDEngine(robot, elements=2)
    f = m.modes([0.0, 0.0, 0.55], count=12).frequencies_hz
    pairs = [k for k in range(len(f) - 1) if abs(f[k + 1] - f[k]) < 1e-8 * f[k]]
    assert len(pairs) >= 3
    # and away from the axis the pairs split
    g = m.modes(P0, count=12).frequencies_hz
    assert min(abs(np.diff(g)) / g[:-1]) > 1e-6


def test_map_repeats_every_120_degrees(robot):
    m = KEDEngine(robot)
    c = Circle.kuo2016()
    for a in (10.0, 47.0):
        pts = [c.centre + c.radius * np.array([math.cos(math.radians(b)),
                                               math.sin(math.radians(b)), 0.0])
               for b in (a, a + 120.0, a + 240.0)]
        f = [m.modes(p, count=8).omega_rad_s for p in pts]
        # same structure rotated by 120 deg: equal to eigensolver round-off (~1e-10
        # relative observed; asserted 1e-8)
        np.testing.assert_allclose(f[1], f[0], rtol=1e-8)
        np.testing.assert_allclose(f[2], f[0], rtol=1e-8)


def test_convergence_from_above_and_faster_with_quintic(robot):
    """Conforming elements give Rayleigh-Ritz upper bounds that decrease under mesh
    refinement (nested meshes n -> 2n). The quintic family is closer to the converged
    values for the same number of elements. (Kuo's KED about the undeformed pose: its
    elements are conforming; the deflected reference is tested against an independent
    reference in tests/formulations/ked/test_ked_deflected.py.)"""
    def modes(order, n, reference=None):
        """omega (8,) and its round-off: a backward-stable generalized eigen-solve gives
        lambda_k to eps lambda_max / lambda_k relative (the stiff axial modes set
        lambda_max: 1e11 (rad/s)^2 for 4 quintic elements, 7e-8 on lambda_1), omega to
        half of it; measured differences of 1e-8 between nested meshes are that."""
        m = KEDEngine(robot, elements=n, order=order, reference=reference)
        s = m.at_rest(P0)
        lam_max = sla.eigh(s.K, s.M, eigvals_only=True, subset_by_index=[m.dof - 1] * 2)[0]
        w = m.modes(P0, 8).omega_rad_s
        return w, 0.5 * np.finfo(float).eps * lam_max / w**2

    ref, ref_err = modes("quintic", 4)
    prev = None
    errs = {}
    for order, ns in (("cubic", (1, 2, 4)), ("quintic", (1, 2))):
        prev = None
        for n in ns:
            w, err = modes(order, n, "undeformed")
            assert np.all(w >= ref * (1 - 4 * (err + ref_err)))
            if prev is not None:
                # nested refinement: never above the coarser mesh (up to round-off)
                assert np.all(w <= prev * (1 + 4 * (err + prev_err)))
            prev, prev_err = w, err
            errs[(order, n)] = np.max(w / ref - 1)
    assert errs[("quintic", 1)] < errs[("cubic", 1)]
    assert errs[("quintic", 2)] < errs[("cubic", 2)]


def test_end_forces_match_rigid_statics_for_pin_jointed_links(robot):
    """Spherical joints at both ends make the lower links pin-jointed rods. At the
    symmetric pose the rigid configuration is an equilibrium; rigid statics then give
    each lower link's axial force at D from the platform's vertical balance,
    m_P g = 3 (P x_z - 1/2 m_2 g (1 - x_z^2)), and the upper link's axial force at B
    from the lower link's balance. The model's forces come from a quasi-static FE solve."""
    m = KEDEngine(robot, joint_b="spherical", joint_d="spherical")
    X = np.array([0.0, 0.0, 0.6])
    s = m.at_rest(X)
    mo = m.motion(X)
    g = 9.81
    mP = robot.platform.mass
    m1, m2 = robot.link_masses
    for i in range(3):
        xl = mo.Rl[0, i][:, 0]
        xz = xl[2]
        P = (mP * g / 3 + 0.5 * m2 * g * (1 - xz**2)) / xz
        # linear FE solve vs closed form: round-off of a well-conditioned solve, 1e-9
        assert s.end_force[i, 1] == pytest.approx(P, rel=1e-9)
        gv = np.array([0.0, 0.0, g])
        gperp = gv - (gv @ xl) * xl
        F_D = P * xl - 0.5 * m2 * gperp          # on the lower link at D
        F_B = -m2 * gv - F_D                      # on the lower link at B
        xu = mo.Ru[0, i][:, 0]
        assert s.end_force[i, 0] == pytest.approx(-F_B @ xu, rel=1e-9)


def test_preload_stiffens_hanging_links(robot):
    """Tension stiffens, compression softens (errata on Kuo eq. 38). At Z = 0.7 m the
    lower links hang in tension (~2.9 N) while the upper links are almost unloaded
    (~-0.3 N): the first frequency rises with the preload. At P0 the upper links carry
    ~-3 N of compression and the first mode (upper-link bending) softens slightly (Kuo's
    preload, about the undeformed pose)."""
    X = [0.0, 0.0, 0.7]
    s = KEDEngine(robot, reference="undeformed").at_rest(X)
    assert np.all(s.end_force[:, 1] > 2.0) and np.all(np.abs(s.end_force[:, 0]) < 0.5)
    on = KEDEngine(robot, reference="undeformed").modes(X, 8).omega_rad_s
    off = KEDEngine(robot, preload=False).modes(X, 8).omega_rad_s
    assert on[0] > off[0] * 1.01
    s0 = KEDEngine(robot, reference="undeformed").at_rest(P0)
    assert np.all(s0.end_force[:, 0] < -1.0)
    on = KEDEngine(robot, reference="undeformed").modes(P0, 8).omega_rad_s
    off = KEDEngine(robot, preload=False).modes(P0, 8).omega_rad_s
    assert on[0] < off[0]


def test_static_deflection_of_a_mechanism_is_refused(robot):
    m = KEDEngine(robot, joint_d="spherical", preload=False)
    with pytest.raises(ModelError, match="mechanism"):
        m.static_deflection(P0)


def test_static_sag_scales_with_compliance(robot):
    """Linear elasticity without preload: scaling E and G by s divides every static
    deflection by s exactly (round-off 1e-10)."""
    d1 = KEDEngine(robot, preload=False).static_deflection(P0)
    d10 = KEDEngine(robot.scaled_stiffness(10.0), preload=False).static_deflection(P0)
    np.testing.assert_allclose(d10, d1 / 10.0, rtol=1e-9, atol=1e-10 * np.abs(d1).max())
    assert d1[2] > 0  # the platform sags along +Z (down)


def test_description_validation():
    with pytest.raises(InputError, match="robot"):
        FlexibleDelta.from_rigid(__import__("elastodyn.description.delta",
                                            fromlist=["delta_asadi2020"]).delta_asadi2020())


def test_free_actuators_carry_the_rotor_inertia(robot):
    """Free actuators (hinges) with a rotor of inertia I_m: along an infinitesimal rigid
    motion of the mechanism (global variables from finite differences of the nonlinear
    kinematics, independent of the model), the kinetic energy gains exactly
    1/2 I_m sum dq_i^2 and the rigid-motion load does the virtual work -I_m sum qdd_i dq_i
    of the rotors' d'Alembert torques (round-off of O(1) sums: 1e-12 relative; the FD
    rates are accurate to ~1e-10, below the asserted 1e-8 of the energy)."""
    from dataclasses import replace
    from elastodyn.description.delta import Friction
    Im = 3e-3
    m0 = KEDEngine(robot, elements=2, actuators="free")
    m1 = KEDEngine(replace(robot, motor_inertia=Im), elements=2, actuators="free")
    smp = Circle.kuo2016().evaluate(np.array([0.4]))
    X = smp.position[0]
    mo = m0.motion(smp.position, smp.velocity, smp.acceleration)
    s0, s1 = m0.system(mo, 0), m1.system(mo, 0)
    for dX in np.eye(3):
        delta, mr = _rigid_mechanism_delta(m0, X, dX)
        eps = 1e-6
        dq = (m0.motion(X + eps * dX).q[0] - m0.motion(X - eps * dX).q[0]) / (2 * eps)
        r0, r1 = m0.system(mr, 0), m1.system(mr, 0)
        assert delta @ (r1.M - r0.M) @ delta == pytest.approx(Im * dq @ dq, rel=1e-8)
        # the rigid-motion load of the moving robot on the same virtual motion
        assert (s1.F - s0.F) @ delta == pytest.approx(-Im * mo.qdd[0] @ dq, rel=1e-8)
    with pytest.raises(InputError, match="actuators"):
        KEDEngine(replace(robot, friction=Friction(viscous=0.1)), actuators="free")


def test_simulated_torques_follow_the_robots_angle_convention():
    """The KED torques are the efforts on the actuated angles q in the robot's
    convention, like its rigid torques: a flexible Delta described with Asadi's
    convention (q_asadi = -q_kuo, so tau_asadi = -tau_kuo) gives the opposite torques
    of the same robot in Kuo's convention, and they stay close to its rigid torques
    along a slow, ramped circle (elastic response small)."""
    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    from elastodyn.trajectories import Ramped
    path = Ramped(Circle([0.0, 0.0, 0.5], 0.05, period=2.0), 1.0)
    out = {}
    for conv in ("kuo2016", "asadi2020"):
        ked = build_model(load_description("delta-kuo2016", [f"convention={conv}"]))
        r = simulate_motion(ked, path, duration=1.0, step=1e-3)
        out[conv] = np.asarray(r["torque_nm"]), np.asarray(r["rigid_torque_nm"])
    (tk, rk), (ta, ra) = out["kuo2016"], out["asadi2020"]
    np.testing.assert_allclose(ra, -rk, atol=1e-9)
    np.testing.assert_allclose(ta, -tk, atol=1e-9)
    scale = np.abs(ra).max()
    assert np.abs(ta - ra).max() < 0.05 * scale
