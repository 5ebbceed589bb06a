"""The flexible Delta as a tree robot for NE-PVP (``description/delta_tree.py``), checked
against what the converter does not compute itself:

* the assembled configuration, by an independent modified Denavit-Hartenberg chain
  written here: the actuated and passive angles of the Delta's kinematics
  (``kinematics.delta``: inverse kinematics, Kuo's passive angles), the elbows, the
  element frames of KED (``ked_delta.rigid_motion``) and the three legs closing on the
  platform frame, in both angle conventions;
* the bodies (platform with payload by the parallel-axis theorem, motors, friction) and
  the refusals (joints that are not isostatic, Stribeck friction);
* the rigid limit: NE-PVP's torques equal the rigid Delta's (Kuo's multipliers, the same
  masses) plus those of the one inertia its lumping leaves out (the lower links' polar
  inertia, computed here from KED's rigid motion) to round-off with the beams
  undeformed, and within 1e-6 with beams 1e6 times stiffer at their quasi-static
  deflection along Kuo's circle;
* the natural frequencies at Kuo's pose (0.1, 0, 0.5) m without gravity preload
  (actuators locked): NE-PVP and KED (``build_model(..., "ked", preload=False)``) equal
  at every mesh, both converging to the same limit (slow: 2 and 4 elements).

The NE-PVP models are built as ``formulations/nepvp_contract.py`` builds tree robots
(NEPVPModel of the tree), through the analyses of the contract. Their programs are
large (one element per link: 9000 assignments for M and c): the C compiler at -O2 takes
over a minute on each, at -O0 a few seconds, for the same numbers (no fast-math), so
this module compiles at -O0 (the CC variable ``symbolic.compiled`` honours).

``python tests/description/test_delta_tree.py`` prints the frequency table of 1, 2 and 4 elements
(with ``CC`` a compiler wrapper adding -O0, as here, in about two minutes).
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import replace

import numpy as np
import pytest

from elastodyn.analysis.modes import modes
from elastodyn.description.delta import DeltaGeometry, DeltaMasses, Friction, RigidDelta
from elastodyn.description.delta_tree import default_home, delta_tree, joint_values
from elastodyn.description.flexible_delta import (FlexibleDelta, Payload, Platform,
                                                  flexible_delta_kuo2016)
from elastodyn.description.materials import STEEL, Material, Section
from elastodyn.description.tree import FlexibleBeam
from elastodyn.exceptions import InputError
from elastodyn.formulations.ked.engine import rigid_motion
from elastodyn.formulations.nepvp.model import NEPVPModel
from elastodyn.formulations.registry import build_model
from elastodyn.formulations.rigid_delta.engine import MultiplierDeltaEngine
from elastodyn.kinematics.delta import DeltaKinematics
from elastodyn.trajectories import Circle

X_KUO = (0.1, 0.0, 0.5)   # Kuo 5.2's pose (the command line's default for a Delta)
ALUMINIUM = Material(E=70e9, G=26e9, rho=2700.0)


@pytest.fixture(scope="module", autouse=True)
def _compile_at_o0(tmp_path_factory):
    """Compile the generated C at -O0 (module docstring): a wrapper of the system's
    compiler that appends -O0 (the last -O wins), given as CC. Without a compiler the
    generated Python runs anyway."""
    cc = next((shutil.which(c) for c in (os.environ.get("CC"), "cc", "gcc", "clang")
               if c and shutil.which(c)), None)
    if cc is None or os.name != "posix":
        yield
        return
    wrapper = tmp_path_factory.mktemp("cc") / "cc-O0"
    wrapper.write_text(f'#!/bin/sh\nexec "{cc}" "$@" -O0\n')
    wrapper.chmod(0o755)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CC", str(wrapper))
        yield


@pytest.fixture(scope="module")
def kuo():
    return flexible_delta_kuo2016()


@pytest.fixture(scope="module")
def kuo_nepvp(kuo):
    """Kuo's Delta by NE-PVP, one element per link, closing from the default home."""
    return NEPVPModel(delta_tree(kuo, 1), {"elements": 1})


def asadi_like() -> FlexibleDelta:
    """A Delta in Asadi's convention and leg angles, with other sections for the upper
    and lower links (rectangles: two bending planes each), a platform given by its
    inertia and centre of mass, a payload off-centre."""
    geo = DeltaGeometry.from_asadi(0.2, 0.05, 0.25, 0.55)
    platform = Platform.rigid(0.4, com=(0.0, 0.01, 0.02),
                              inertia=np.diag([4e-4, 5e-4, 7e-4]))
    return FlexibleDelta(geo, Section.rectangle(0.012, 0.008), STEEL, platform,
                         lower_section=Section.rectangle(0.006, 0.004),
                         lower_material=ALUMINIUM, name="asadi-like",
                         payload=Payload(0.2, (0.01, -0.02, 0.03),
                                         np.diag([1e-4, 2e-4, 3e-4])))


# ------------------------------------------------------------------ an independent chain
def _rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def mdh_frames(tree, values):
    """World frames (R (3, 3), origin (3,)) of every joint of ``tree`` for the joint
    values ``values`` (rigid links): Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d)
    Rot(z, theta + q) Trans(z, r + q), joint by joint from the base."""
    frames = {0: (np.eye(3), np.zeros(3))}
    for j, jt in enumerate(tree.joints, start=1):
        R, o = frames[jt.antecedent]
        q = values.get(jt.name, 0.0) if jt.kind != "fixed" else 0.0
        th = jt.theta + (q if jt.kind == "revolute" else 0.0)
        r = jt.r + (q if jt.kind == "prismatic" else 0.0)
        Rg = R @ _rot("z", jt.gamma)
        o = o + Rg @ np.array([0.0, 0.0, jt.b])
        Ra = Rg @ _rot("x", jt.alpha)
        o = o + Ra @ np.array([jt.d, 0.0, 0.0])
        Rt = Ra @ _rot("z", th)
        frames[j] = (Rt, o + Rt @ np.array([0.0, 0.0, r]))
    return {jt.name: frames[j] for j, jt in enumerate(tree.joints, start=1)}


# ------------------------------------------------------------------ structure
def test_tree_is_isostatic_with_six_closure_rows(kuo):
    tree = delta_tree(kuo, 2)
    kinds = [(jt.name, jt.kind, jt.actuated) for jt in tree.joints]
    assert len(kinds) == 21
    assert [n for n, k, a in kinds if a] == ["q1", "q2", "q3"]
    passive = [n for n, k, a in kinds if k == "revolute" and not a]
    assert passive == [f"{p}{i}_{x}" for i in (1, 2, 3)
                       for p, x in (("b", "y"), ("b", "z"), ("d", "z"), ("d", "y"))]
    assert tree.closure_rows == (0, 1, 2, 3, 4, 5)
    assert len(passive) == (len(tree.terminals) - 1) * 6
    assert [tree.joints[t - 1].name for t in tree.terminals] == [
        "platform1", "platform2", "platform3"]
    beams = {tree.joints[j - 1].name: b for j, b in tree.bodies.items()}
    assert sorted(beams) == ["b1_z", "b2_z", "b3_z", "upper1", "upper2", "upper3"]
    for name, b in beams.items():
        assert isinstance(b, FlexibleBeam) and b.spatial and b.elements == 2
        upper = name.startswith("upper")
        assert b.length == (0.5 if upper else 0.6)
        assert b.section == kuo.section and b.material == kuo.material
    assert tree.gravity == (0.0, 0.0, 9.81)
    assert tree.motor_inertia == {} and tree.viscous == {} and tree.coulomb == {}
    assert tree.name == "delta-kuo2016"


def test_default_home_is_on_the_axis_at_mid_reach(kuo):
    X = default_home(kuo)
    assert X[0] == X[1] == 0.0 and X[2] == pytest.approx(math.sqrt(0.6 ** 2 - 0.05 ** 2))
    margin = DeltaKinematics(kuo.geometry).reachability_margin(X)
    assert np.all(margin > 0.1)
    assert delta_tree(kuo, 1).home == joint_values(kuo, X)


@pytest.mark.parametrize("robot, X", [
    (flexible_delta_kuo2016(), X_KUO),
    (flexible_delta_kuo2016(), (-0.12, 0.07, 0.62)),
    (flexible_delta_kuo2016(), None),
    (asadi_like(), (0.05, -0.1, 0.6)),
    (asadi_like(), None),
], ids=["kuo-pose", "kuo-off-axis", "kuo-home", "asadi-pose", "asadi-home"])
def test_assembled_configuration_is_the_delta_and_ked_frames(robot, X):
    """At the tree's home (the given pose, or the default), evaluated by the chain
    written here: the actuated angles are the kinematics' (robot's convention, elbows
    out), the passive ones Kuo's (phi_2, phi_3); A_i, B_i, D_i are where the Delta's
    kinematics puts them; the beams' frames are KED's element frames (upper: x along
    A_iB_i, y the motor axis; lower: x along B_iD_i, z = x_l x y_i normalized); the
    motor axis is geometry.axes[i]; the three terminals are the platform frame (origin
    X, world axes)."""
    tree = delta_tree(robot, 1, home=X)
    X = default_home(robot) if X is None else np.asarray(X, float)
    kin = DeltaKinematics(robot.geometry)
    q = kin.inverse_kinematics(X)
    phi2, phi3 = kin.passive_angles(X, q)
    s = robot.geometry.sign
    for i in range(3):
        n = i + 1
        assert tree.home[f"q{n}"] == pytest.approx(q[i], abs=1e-12)
        assert tree.home[f"b{n}_y"] == pytest.approx(phi2[i], abs=1e-12)
        assert tree.home[f"b{n}_z"] == pytest.approx(phi3[i], abs=1e-12)
        assert tree.home[f"d{n}_z"] == pytest.approx(-phi3[i], abs=1e-12)
        assert tree.home[f"d{n}_y"] == pytest.approx(-(s * q[i] + phi2[i]), abs=1e-12)
    F = mdh_frames(tree, tree.home)
    mo = rigid_motion(kin, X)
    A, B, D = kin.base_joints, kin.elbows(q), kin.platform_joints(X)
    for i in range(3):
        n = i + 1
        Ra, oa = F[f"q{n}"]
        np.testing.assert_allclose(oa, A[i], atol=1e-14)
        np.testing.assert_allclose(Ra[:, 2], robot.geometry.axes[i], atol=1e-14)
        np.testing.assert_allclose(F[f"upper{n}"][0], mo.Ru[0, i], atol=1e-12)
        np.testing.assert_allclose(F[f"b{n}_y"][1], B[i], atol=1e-12)
        np.testing.assert_allclose(F[f"b{n}_z"][0], mo.Rl[0, i], atol=1e-12)
        np.testing.assert_allclose(F[f"b{n}_z"][1], B[i], atol=1e-12)
        np.testing.assert_allclose(F[f"d{n}_z"][1], D[i], atol=1e-12)
        Rp, op = F[f"platform{n}"]
        np.testing.assert_allclose(Rp, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(op, X, atol=1e-12)


def test_unreachable_home_is_refused(kuo):
    with pytest.raises(InputError, match="leg 1 does not") as err:
        delta_tree(kuo, 1, home=(0.0, 0.0, 2.0))
    assert err.value.name == "home"


@pytest.mark.parametrize("joints", [("spherical", "universal"), ("universal", "spherical"),
                                    ("spherical", "spherical"), ("universal", "clamped"),
                                    ("clamped", "universal"), ("clamped", "spherical")])
def test_joints_that_are_not_isostatic_are_refused_or_made_universal(joints):
    robot = flexible_delta_kuo2016(*joints)
    name = "joints.b" if joints[0] != "universal" else "joints.d"
    with pytest.raises(InputError, match="universal for NE-PVP") as err:
        delta_tree(robot, 1)
    assert err.value.name == name
    assert (delta_tree(robot, 1, closest_isostatic=True)
            == delta_tree(flexible_delta_kuo2016(), 1))


def test_platform_payload_motors_and_friction():
    """The carried body in the platform frame (world axes at P): mass, first moment and
    inertia about P by the parallel-axis theorem, computed here from the platform's and
    the payload's own data; motor inertia and friction on the motor joints."""
    robot = replace(asadi_like(), motor_inertia=2e-3,
                    friction=Friction(viscous=0.01, coulomb=0.05))
    tree = delta_tree(robot, 1)
    bodies = [(0.4, np.array([0.0, 0.01, 0.02]), np.diag([4e-4, 5e-4, 7e-4])),
              (0.2, np.array([0.01, -0.02, 0.03]), np.diag([1e-4, 2e-4, 3e-4]))]
    m = sum(b[0] for b in bodies)
    ms = sum(b[0] * b[1] for b in bodies)
    IP = sum(I + mb * (c @ c * np.eye(3) - np.outer(c, c)) for mb, c, I in bodies)
    assert tree.platform.mass == pytest.approx(m, rel=1e-15)
    np.testing.assert_allclose(tree.platform.ms, ms, rtol=1e-14)
    np.testing.assert_allclose(tree.platform.inertia, IP, rtol=1e-12, atol=1e-18)
    names = ("q1", "q2", "q3")
    assert tree.motor_inertia == dict.fromkeys(names, 2e-3)
    assert tree.viscous == dict.fromkeys(names, 0.01)
    assert tree.coulomb == dict.fromkeys(names, 0.05)
    lower = tree.bodies[4]
    assert lower.section == robot.lower_section and lower.material == ALUMINIUM
    with pytest.raises(InputError) as err:
        delta_tree(replace(robot, friction=Friction(coulomb=0.05, static=0.08)), 1)
    assert err.value.name == "motors.friction.static"
    with pytest.raises(InputError):
        delta_tree(robot, 0)
    with pytest.raises(InputError):
        delta_tree(delta_tree(robot, 1), 1)


# ------------------------------------------------------------------ NE-PVP
def test_closure_at_kuo_pose_gives_kuo_passive_angles(kuo, kuo_nepvp):
    """From the default home (continuation along the actuated angles) to Kuo's pose:
    the platform at X and the passive joints at Kuo's angles."""
    kin = DeltaKinematics(kuo.geometry)
    q = kin.inverse_kinematics(X_KUO)
    st = kuo_nepvp.state(actuated=q)
    np.testing.assert_allclose(st.pose, X_KUO, atol=1e-12)
    phi2, phi3 = kin.passive_angles(X_KUO, q)
    ref = np.ravel([[phi2[i], phi3[i], -phi3[i], -(q[i] + phi2[i])] for i in range(3)])
    np.testing.assert_allclose(st.passive, ref, atol=1e-10)


def _frequencies(model, state):
    return np.asarray(modes(model, state, count=12, preload=False)["frequencies_hz"])


def test_frequencies_equal_ked_at_one_element(kuo, kuo_nepvp):
    """The same structure linearized about the same pose, no preload, actuators locked:
    NE-PVP's 12 lowest frequencies equal KED's at one cubic element per link (the same
    elements, joints and platform; 36 elastic coordinates each). Measured 7e-11
    relative (eigen-solver round-off); tolerance 1e-8, four orders below the
    discretization error at one element (1e-4 on the first mode, 0.1 on the 10th)."""
    kin = DeltaKinematics(kuo.geometry)
    nepvp = _frequencies(kuo_nepvp, kuo_nepvp.state(actuated=kin.inverse_kinematics(X_KUO)))
    ked = build_model(kuo, formulation="ked", elements=1, preload=False)
    ref = _frequencies(ked, ked.state(pose=X_KUO))
    assert kuo_nepvp.n_elastic == ked.n_elastic == 36
    np.testing.assert_allclose(nepvp, ref, rtol=1e-8)
    assert ref[0] == pytest.approx(3.27065, abs=1e-5)


def stiff_test_robot() -> FlexibleDelta:
    """Kuo's geometry and platform with rectangular links (steel 6 x 4 mm upper,
    aluminium 5 x 3 mm lower: two bending planes each), a motor inertia and viscous
    motor friction."""
    return replace(flexible_delta_kuo2016(), section=Section.rectangle(0.006, 0.004),
                   lower_section=Section.rectangle(0.005, 0.003),
                   lower_material=ALUMINIUM, motor_inertia=2e-3,
                   friction=Friction(viscous=0.01), name="stiff-test")


def polar_inertia_torques(robot, X, Xd, Xdd) -> np.ndarray:
    """The actuator torques [N m], shape (3,), that the lower links' polar inertia
    J_p = rho I_p L2 takes along a rigid motion, the one inertia the rigid Delta's
    lumping (:meth:`DeltaMasses.uniform_rods`) leaves out, from KED's rigid motion
    (``ked_delta.rigid_motion``: the links' frames, angular velocities and
    accelerations): a lower link of axis x and inertia J_p x x^T needs the moment
    M = J_p [(x . al) x + (x . w) w x x] (Euler; x_dot = w x x); with w = W_i X_dot
    (linear in the platform velocity at a pose) its power is X_dot . W_i^T M, and the
    torques are tau = J^-T sum_i W_i^T M_i (q_dot = J X_dot)."""
    kin = DeltaKinematics(robot.geometry)
    sec, mat = robot.link_sections[1], robot.link_materials[1]
    Jp = mat.rho * sec.ip * robot.geometry.lower_length
    mo = rigid_motion(kin, X, Xd, Xdd)
    W = np.stack([rigid_motion(kin, X, u).wl[0] for u in np.eye(3)], axis=-1)
    F = np.zeros(3)
    for i in range(3):
        x, w, al = mo.Rl[0, i][:, 0], mo.wl[0, i], mo.al[0, i]
        F += W[i].T @ (Jp * ((x @ al) * x + (x @ w) * np.cross(w, x)))
    return np.linalg.solve(kin.jacobian(X).T, F)


@pytest.fixture(scope="module")
def stiff():
    """The test robot by NE-PVP, beams 1e6 times stiffer, and samples of Kuo's circle
    (1 s, radius 0.1 m, centre (0, 0, 0.5) m) with the rigid Delta's torques (Kuo's
    multipliers, the same masses: uniform rods rho A L, the platform's mass, the motor's
    inertia and friction) plus those of the polar inertia."""
    robot = stiff_test_robot()
    sample = Circle.kuo2016().evaluate(np.linspace(0.0, 1.0, 5, endpoint=False))
    tree = delta_tree(robot, 1, home=sample.position[0]).with_stiffness_scale(1e6)
    g = robot.geometry
    m1, m2 = robot.link_masses
    rigid = RigidDelta(g, DeltaMasses.uniform_rods(robot.platform.mass, m1, g.upper_length,
                                                   m2, robot.motor_inertia),
                       robot.friction, robot.gravity)
    lumped = MultiplierDeltaEngine(rigid).inverse_dynamics(
        sample.position, sample.velocity, sample.acceleration).torque
    polar = np.array([polar_inertia_torques(robot, *x) for x in
                      zip(sample.position, sample.velocity, sample.acceleration)])
    ks = DeltaKinematics(g).state(sample.position, sample.velocity, sample.acceleration)
    states = [dict(actuated=ks.q[k], rates=ks.qd[k], accelerations=ks.qdd[k])
              for k in range(len(ks.q))]
    return robot, NEPVPModel(tree, {"elements": 1}), sample, states, lumped, polar


def test_rigid_robot_equals_the_rigid_delta(stiff):
    """With the beams undeformed (e = e_dot = e_ddot = 0: the rigid robot of the
    distributed links), NE-PVP's tau = M_aa q_ddot + c_a equals the multipliers' torques
    plus those of the lower links' polar inertia to round-off (tolerance 1e-10 N m,
    measured 8e-13). The polar inertia's share is the rigid lumping's error: 2.6e-8 N m
    here (1e-8 of the torques), 1.8e-7 N m on Kuo's Delta."""
    robot, model, sample, states, lumped, polar = stiff
    for motion, ref, extra in zip(states, lumped, polar):
        st = model.state(**motion)
        tau = model.mass_matrix(st)[:3, :3] @ motion["accelerations"] + model.bias(st)[:3]
        np.testing.assert_allclose(tau, ref + extra, rtol=0, atol=1e-10)
    assert 1e-9 < np.abs(polar).max() < 1e-6 * np.abs(lumped).max()


def test_stiff_inverse_dynamics_tends_to_the_rigid_delta(stiff):
    """NE-PVP's inverse problem (Briot IV-D, its generated program) with beams 1e6 times
    stiffer, at the quasi-static deflection along the motion (the elastic rows of
    M a + c zero with e_ddot = 0, by Newton with the elastic stiffness; e_dot neglected,
    O(1e-6) of the rates): the deflections are 1e-6 of the flexible robot's (whose sag
    is 4 % of a link), and so is the change of the torques; tolerance 1e-6 of the
    largest torque (measured 3e-8)."""
    robot, model, sample, states, lumped, polar = stiff
    K = model.elastic_stiffness()
    scale = np.abs(lumped).max()
    for motion, ref, extra in zip(states, lumped, polar):
        st = model.state(**motion)
        qdd = motion["accelerations"]
        for _ in range(3):
            M, c = model.mass_matrix(st), model.bias(st)
            e = st.elastic - np.linalg.solve(K, c[3:] + M[3:, :3] @ qdd)
            st = model.at(st, q=np.concatenate([motion["actuated"], e]))
        M, c = model.mass_matrix(st), model.bias(st)
        assert np.abs(c[3:] + M[3:, :3] @ qdd).max() < 1e-9
        np.testing.assert_allclose(model.inverse_dynamics(st).tau, ref + extra,
                                   rtol=0, atol=1e-6 * scale)


def test_stiff_frequencies_equal_ked_with_rectangular_links(stiff):
    """The beams' element frames: links of two bending planes (rectangles), other
    upper and lower sections and materials, a motor (locked: no effect) give KED's
    frequencies at one element (the KED robot 1e6 times stiffer too: E and G scaled;
    measured 5e-11)."""
    robot, model, sample, *_ = stiff
    X = sample.position[0]
    q = DeltaKinematics(robot.geometry).inverse_kinematics(X)
    ked = build_model(robot.scaled_stiffness(1e6), formulation="ked", preload=False)
    np.testing.assert_allclose(_frequencies(model, model.state(actuated=q)),
                               _frequencies(ked, ked.state(pose=X)), rtol=1e-8)


# ------------------------------------------------------------------ convergence (slow)
def frequency_table(counts=(1, 2, 4), *, reference=16, models=None):
    """{n: (NE-PVP, KED) frequencies [Hz] (12 each)} at Kuo's pose, no preload, and
    KED's at ``reference`` elements; ``models``: NE-PVP models already built."""
    kuo = flexible_delta_kuo2016()
    q = DeltaKinematics(kuo.geometry).inverse_kinematics(X_KUO)
    out = {}
    for n in counts:
        nepvp = (models or {}).get(n) or NEPVPModel(delta_tree(kuo, n, home=X_KUO),
                                                       {"elements": n})
        ked = build_model(kuo, formulation="ked", elements=n, preload=False)
        out[n] = (_frequencies(nepvp, nepvp.state(actuated=q)),
                  _frequencies(ked, ked.state(pose=X_KUO)))
    ked = build_model(kuo, formulation="ked", elements=reference, preload=False)
    return out, _frequencies(ked, ked.state(pose=X_KUO))


@pytest.mark.slow
def test_frequencies_converge_to_ked_limit(kuo_nepvp):
    """1, 2 and 4 elements per link (about 100 s, 70 of them generating NE-PVP's
    model of 4 elements). At each mesh NE-PVP equals KED to 5e-8 (measured 7e-11, 4e-10,
    3e-9: eigen-solver round-off, which grows as the mesh's stiffness range h^-4; two
    paths through KED's own model differ by 3e-9 at 4 elements), ten times below the
    smallest discretization error in the table (5e-7, the first mode at 4 elements,
    against 16 elements). Both converge to one limit: nested meshes of conforming cubic
    elements with consistent masses are Rayleigh-Ritz approximations, so every
    frequency decreases with refinement, and the error decreases as h^4 (bending of
    cubic Hermite elements: observed order between 2 and 4 elements in [3.5, 4.5] for
    the nine lowest modes, against KED at 16 elements)."""
    table, limit = frequency_table(models={1: kuo_nepvp})
    for n, (nepvp, ked) in table.items():
        np.testing.assert_allclose(nepvp, ked, rtol=5e-8, err_msg=f"{n} elements")
    f1, f2, f4 = (table[n][0] for n in (1, 2, 4))
    assert np.all(f1 > f2) and np.all(f2 > f4) and np.all(f4 > limit)
    order = np.log2((f2 - limit) / (f4 - limit))[:9]
    assert np.all((order > 3.5) & (order < 4.5)), order


if __name__ == "__main__":
    table, limit = frequency_table()
    np.set_printoptions(precision=6, linewidth=140)
    print(f"Kuo's Delta at {X_KUO} m, no preload, actuators locked: frequencies [Hz]")
    for n, (nepvp, ked) in table.items():
        print(f"{n} element(s)\n  NE-PVP {nepvp}\n  KED    {ked}")
        print(f"  |NE-PVP / KED - 1|: max {np.abs(nepvp / ked - 1).max():.2e}")
        print(f"  KED / KED(16) - 1: {ked / limit - 1}")
    print(f"KED, 16 elements: {limit}")
