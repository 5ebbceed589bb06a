"""A 3-PRR-like robot with a rigid platform (six passive joints), described only in a
YAML tree file and run through the command line (modes, simulate, map), against
references written here or independent of elastodyn:

* the loop closure against the circle-line intersections of the rigid robot
  (inverse_geometry below; the forward problem by Newton on it);
* the natural frequencies against the independent frame finite-element model
  (tests/references/reference_3prr_frame.py: pinned legs, rigid platform, numpy only);
* the motion-driven simulation: its actuated motion against the septic rest-to-rest law
  written here, its rigid efforts at rest at both ends against the statics of the rigid
  robot by virtual work (the gravity potential of the legs and platform, differentiated
  along the pose), its elastic efforts against the library's simulate_motion with a
  step ten times finer;
* the map along a line of actuated coordinates: each point equals ``modes`` at that
  pose and the frame model there.

Geometry (as tests/formulations/nepvp/test_nepvp_closure.py, written again here from the
numbers): rails
along x0 on y = 0, the platform hangs below them (gravity -y0), legs of 0.48, 0.50 and
0.52 m, aluminium 2 mm (in the plane) x 20 mm, carriages of 1 kg, a triangular platform
of 0.5 kg and 2.5e-3 kg m^2 about its centroid.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from elastodyn.cli import main

from reference_3prr_frame import frame_omegas

LEGS = np.array([0.48, 0.50, 0.52])
VERTS = np.array([[-0.12, 0.06], [0.12, 0.06], [0.0, -0.08]])   # B_i, platform frame [m]
BRANCH = np.array([-1.0, -1.0, 1.0])    # carriage left (-1) or right (+1) of its B_i
HOME = (0.0, -0.40, 0.0)                # platform origin x, y [m], angle [rad]
MASS, INERTIA_G, CARRIAGE, G = 0.5, 2.5e-3, 1.0, 9.81
E, RHO, WIDTH, HEIGHT = 70e9, 2800.0, 2e-3, 20e-3
AREA, IZ = WIDTH * HEIGHT, HEIGHT * WIDTH**3 / 12.0
POSES = [HOME, (0.03, -0.38, 0.10), (-0.05, -0.42, -0.15)]



def inverse_geometry(x, y, phi):
    """The rigid robot at platform pose (x, y, phi): pins B_i = P + R(phi) b_i, carriages
    A_i where the circle of radius L_i about B_i meets the rail y = 0 (branch BRANCH), leg
    angles psi_i. Returns (A_x (3,), psi (3,), B (3, 2))."""
    c, s = math.cos(phi), math.sin(phi)
    B = np.array([x, y]) + VERTS @ np.array([[c, s], [-s, c]])
    ax = B[:, 0] + BRANCH * np.sqrt(LEGS ** 2 - B[:, 1] ** 2)
    psi = np.arctan2(B[:, 1], B[:, 0] - ax)
    return ax, psi, B


HOME_AX = inverse_geometry(*HOME)[0]


def actuated(pose):
    """Actuated coordinates [m] of a pose: carriage displacements from home."""
    return inverse_geometry(*pose)[0] - HOME_AX


def forward(q, guess=HOME):
    """The pose of actuated coordinates q, by Newton on the inverse geometry (finite
    difference Jacobian; converged to 1e-14 m)."""
    p = np.array(guess, dtype=float)
    for _ in range(50):
        r = actuated(p) - q
        if np.abs(r).max() < 1e-14:
            return p
        J = np.column_stack([(actuated(p + d) - actuated(p - d)) / 2e-7
                             for d in 1e-7 * np.eye(3)])
        p = p - np.linalg.solve(J, r)
    raise AssertionError("forward geometry did not converge")


def prr_yaml() -> str:
    """The robot as a tree file: leg i is the prismatic q_i along x0 (actuated; gamma =
    alpha = pi/2 turn z onto x0, r the home carriage position so that q = 0 at home),
    the revolute a_i about z0 at the carriage (theta = -pi/2: a_i is the leg angle)
    carrying the beam, the revolute b_i at the beam tip B_i and a fixed frame p_i at the
    platform origin (terminal; theta turns it from the leg to the platform axes)."""
    ax, psi, _ = inverse_geometry(*HOME)
    h = math.pi / 2
    joints, bodies, home = [], [], []
    for i in range(3):
        n, off = i + 1, math.pi - math.atan2(VERTS[i, 1], VERTS[i, 0])
        joints += [
            f"  - {{name: q{n}, type: prismatic, actuated: true, gamma: {h!r}, "
            f"alpha: {h!r}, r: {float(ax[i])!r}}}",
            f"  - {{name: a{n}, parent: q{n}, alpha: {-h!r}, theta: {-h!r}}}",
            f"  - {{name: b{n}, parent: a{n}, d: {float(LEGS[i])!r}}}",
            f"  - {{name: p{n}, parent: b{n}, type: fixed, "
            f"d: {float(np.hypot(*VERTS[i]))!r}, theta: {off!r}}}"]
        bodies += [f"  q{n}: {{rigid: {{mass: {CARRIAGE}}}}}",
                   f"  a{n}:\n    beam:\n      length: {float(LEGS[i])!r}\n"
                   f"      section: {{shape: rectangle, width: {WIDTH}, height: {HEIGHT}}}\n"
                   f"      material: {{E: {E}, G: 26.0e+9, rho: {RHO}}}"]
        home += [f"  q{n}: 0", f"  a{n}: {float(psi[i])!r}",
                 f"  b{n}: {float(HOME[2] - psi[i] - off)!r}"]
    c = VERTS.mean(axis=0)
    return "\n".join([
        "family: tree", "name: 3prr-like", "gravity: [0, -9.81, 0]", "joints:", *joints,
        "bodies:", *bodies, "terminals: [p1, p2, p3]",
        # a thin plate: I_xx + I_yy = I_zz (the planar rows use I_zz only)
        f"platform: {{mass: {MASS}, com: [{float(c[0])!r}, {float(c[1])!r}, 0],",
        f"  inertia: [[{INERTIA_G / 2}, 0, 0], [0, {INERTIA_G / 2}, 0], [0, 0, {INERTIA_G}]]}}",
        "closure: [vx, vy, wz]", "home:", *home]) + "\n"


@pytest.fixture(scope="module")
def robot_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("prr") / "3prr.yaml"
    f.write_text(prr_yaml())
    return f


def _args(values):
    """Numbers as command-line arguments (every digit: repr of a float)."""
    return [repr(float(v)) for v in values]


def run_json(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def frame_reference(pose, n):
    """Frequencies [rad/s] of the independent frame model at pose, n elements per leg."""
    ax, _, B = inverse_geometry(*pose)
    A = np.stack([ax, np.zeros(3)], axis=1)
    c, s = math.cos(pose[2]), math.sin(pose[2])
    g = np.array([[c, -s], [s, c]]) @ VERTS.mean(axis=0)
    return frame_omegas(A, B, pose[:2], n, E * AREA, E * IZ, RHO * AREA, MASS, MASS * g,
                        INERTIA_G + MASS * float(g @ g))


# ------------------------------------------------------------------ modes
@pytest.mark.parametrize("n", [1, 2])
def test_modes_equal_the_independent_frame_model(robot_file, capsys, n):
    """modes FILE --actuated Q --elements n: the loops close where the circle-line
    geometry puts the platform (1e-11 m, Newton's tolerance), and the frequencies equal
    the frame model's (same elements, other coordinates: floating frames clamped at the
    joints): round-off of the contract's linearization (central differences, 1e-10)
    and of the eigen-solvers; asserted 1e-8 relative, measured 4.4e-12 at most."""
    for pose in POSES:
        doc = run_json(["modes", str(robot_file), "--actuated", *_args(actuated(pose)),
                        "--elements", str(n), "--count", str(9 * n), "--json"], capsys)
        assert doc["formulation"] == "nepvp" and doc["model"] == {"elements": n}
        np.testing.assert_allclose(doc["inputs"]["position_m"][:2], pose[:2], rtol=0,
                                   atol=1e-11)
        np.testing.assert_allclose(doc["omega_rad_s"], frame_reference(pose, n), rtol=1e-8)


# ------------------------------------------------------------------ simulate
def _statics(pose):
    """Actuator forces [N] holding the rigid robot at rest at pose, by virtual work:
    sum tau_i dq_i = dV for every virtual change of the pose, so J^T tau = dV/dp with
    J = dq/dp; V = g (sum m_leg (y_A + y_B) / 2 + m y_G), the carriages at y = 0 on
    the rails. Central differences of the geometry, step 1e-6 (truncation 1e-12,
    round-off 1e-10 relative)."""
    m_leg = RHO * AREA * LEGS

    def V(p):
        _, _, B = inverse_geometry(*p)
        c, s = math.cos(p[2]), math.sin(p[2])
        yg = p[1] + s * VERTS.mean(axis=0)[0] + c * VERTS.mean(axis=0)[1]
        return G * (float(m_leg @ (B[:, 1] / 2)) + MASS * yg)
    h = 1e-6
    p = np.asarray(pose, dtype=float)
    dV = np.array([(V(p + d) - V(p - d)) / (2 * h) for d in h * np.eye(3)])
    J = np.column_stack([(actuated(p + d) - actuated(p - d)) / (2 * h) for d in h * np.eye(3)])
    return np.linalg.solve(J.T, dV)


def test_simulate_rest_to_rest(robot_file, capsys):
    """simulate FILE --trajectory rest-to-rest: the carriages move from home to the
    actuated coordinates of pose 2 in 0.3 s, the run goes on to 0.4 s (residual
    vibration), from the static deflection under gravity, NE-PVP, compiled RK4.

    * the actuated motion is the septic rest-to-rest law q = q_f (35 t^4 - 84 t^5 +
      70 t^6 - 20 t^7), t = time / 0.3 (round-off: 1e-14 m);
    * the rigid platform starts at home and ends at pose 2 (closure: 1e-10 m);
    * the rigid efforts at rest (t = 0, and from 0.3 s on) are the statics of the rigid
      robot by virtual work (_statics; 1e-7 of their scale, measured 9e-11); at the
      peak acceleration they differ from the statics there by 73 % (inertia);
    * the efforts with the elastic response are the library's own simulate_motion
      (analysis.nepvp) on the robot of the same file: equal to it at the same integrator
      step (1e-4 s: min(0.1 ms, 1/omega_max), omega_max 6.3e3 rad/s) and within 5e-6 of
      their peak of a run ten times finer (RK4 converges as h^4: measured 9.6e-7, 1.1e-7,
      7e-9 at 1e-4, 5e-5, 2.5e-5 s against 5e-6 s); they stay within 2 % of the rigid
      ones (links stiff for this motion; measured 1.4e-3) but differ from them (the legs
      respond)."""
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.description.convert import tree_robot
    from elastodyn.description.files import load_description
    from elastodyn.formulations.nepvp.engine import NEPVPEngine
    from elastodyn.trajectories import RestToRest
    end_pose = POSES[1]
    to = actuated(end_pose)
    doc = run_json(["simulate", str(robot_file), "--trajectory", "rest-to-rest", "--to",
                    *_args(to), "--motion-time", "0.3", "--duration", "0.4", "--json"],
                   capsys)
    assert doc["formulation"] == "nepvp" and doc["inputs"]["method"] == "rk4"
    t = np.array(doc["time_s"])
    assert len(t) == 401 and t[-1] == pytest.approx(0.4)
    tau_ = np.clip(t / 0.3, 0.0, 1.0)
    s = 35 * tau_**4 - 84 * tau_**5 + 70 * tau_**6 - 20 * tau_**7
    np.testing.assert_allclose(doc["actuated"], s[:, None] * to, rtol=0, atol=1e-14)
    rigid_xp = np.array(doc["rigid_ee_position_m"])      # (n_t, 3): x y z, z = 0 here
    assert rigid_xp.shape == (401, 3) and not np.any(rigid_xp[:, 2])
    rigid_xp = rigid_xp[:, :2]
    np.testing.assert_allclose(rigid_xp[0], HOME[:2], rtol=0, atol=1e-10)
    np.testing.assert_allclose(rigid_xp[-1], end_pose[:2], rtol=0, atol=1e-10)
    rigid = np.array(doc["rigid_force_n"])
    scale = np.abs(rigid).max()
    for k, pose in ((0, HOME), (-1, end_pose), (310, end_pose)):
        np.testing.assert_allclose(rigid[k], _statics(pose), rtol=0, atol=1e-7 * scale)
    k = 63                                  # t = 0.063 s: the peak acceleration (tau 0.21)
    assert np.abs(rigid[k] - _statics(forward(s[k] * to))).max() > 0.1 * scale
    force = np.array(doc["force_n"])
    model = NEPVPEngine(tree_robot(load_description(robot_file)))
    traj = RestToRest(np.zeros(3), to, t0=0.0, tf=0.3, space="joint")
    same = simulate_motion(model, traj, end=0.4, step=1e-3, method="rk4")
    np.testing.assert_allclose(force, same.tau, rtol=0, atol=1e-12 * scale)
    fine = simulate_motion(model, traj, end=0.4, step=1e-3, method="rk4", max_step=1e-5)
    assert np.abs(force - fine.tau).max() < 5e-6 * np.abs(fine.tau).max()
    np.testing.assert_allclose(doc["elastic"], fine.e, rtol=0, atol=1e-7 * np.abs(fine.e).max())
    assert 1e-4 * scale < np.abs(force - rigid).max() < 2e-2 * scale


# ------------------------------------------------------------------ map
def test_map_along_a_line_equals_modes_at_each_point(robot_file, capsys):
    """map FILE --path line --from 0 0 0 --to Q --points 5: point k is at the actuated
    coordinates Q k / 4; its frequencies equal those of ``modes --actuated`` there
    (the same computation: equal to round-off, 1e-12) and the frame model's at the pose
    the circle-line geometry gives (1e-8, as above); its position is that pose (1e-11 m)."""
    to = actuated(POSES[2])
    doc = run_json(["map", str(robot_file), "--path", "line", "--from", "0", "0", "0",
                    "--to", *_args(to), "--points", "5", "--count", "6", "--json"],
                   capsys)
    frac = np.array(doc["path_fraction"])
    np.testing.assert_allclose(frac, np.linspace(0, 1, 5), rtol=0, atol=1e-15)
    omegas = np.array(doc["omega_rad_s"])
    assert omegas.shape == (5, 6)
    pose = HOME
    for k, f in enumerate(frac):
        q = f * to
        pose = forward(q, pose)
        one = run_json(["modes", str(robot_file), "--actuated", *_args(q), "--count",
                        "6", "--json"], capsys)
        np.testing.assert_allclose(omegas[k], one["omega_rad_s"], rtol=1e-12)
        np.testing.assert_allclose(omegas[k], frame_reference(pose, 1)[:6], rtol=1e-8)
        np.testing.assert_allclose(doc["position_m"][k][:2], pose[:2], rtol=0, atol=1e-11)
