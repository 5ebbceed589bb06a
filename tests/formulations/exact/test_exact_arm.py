"""The geometrically exact formulation on planar arms (issue 31) against NE-PVP (Briot &
Khalil 2013, the same cubic finite elements with small-rotation beams and their membrane
stiffening): equal where both are linear, converging to each other as the motion and the
loads shrink, and apart where the arm leaves the small-rotation range."""
import numpy as np
import pytest

from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model
from elastodyn.timegrid import uniform_times
from elastodyn.trajectories import RestToRest

# without the motors' Coulomb friction: its sign is smoothed differently by the two
# formulations (AMM's tanh(qd / 1e-3) here, NE-PVP's exact sign), which the slow starts
# of a small motion would show; viscous friction and the gears stay
NO_COULOMB = ["links.0.coulomb=0", "links.1.coulomb=0"]


def _arm(g=9.81):
    return load_description("arm-yu2019", [f"gravity={g}", *NO_COULOMB])


def test_linear_frequencies_are_the_finite_elements():
    """About the straight arm without preload both models are the same linear cubic
    finite elements (4 per link), reached by different code (the corotational element
    on jets, the symbolic Newton-Euler): the lowest frequencies agree to 1e-8."""
    out = []
    for form in ("exact", "nepvp"):
        m = build_model(_arm(), form, elements=4)
        lin = m.linearize(m.state(actuated=[0.0, 0.0]))
        w = np.sqrt(np.sort(np.abs(np.linalg.eigvals(np.linalg.solve(lin.M, lin.K)))))
        out.append(w[:4])
    np.testing.assert_allclose(out[0], out[1], rtol=1e-8)


def test_static_sag_converges_to_nepvp_as_gravity_shrinks():
    """The tip's sag under gravity at (0.3, 0.5) rad: the two models differ by the terms
    NE-PVP leaves out (rotations beyond its membrane stiffening), second order in the
    deflection relative to it. Measured: 7.1e-3, 1.0e-4 and 4.9e-6 of the sag at g,
    g / 10 and g / 100 (the sag 0.11 m, 11 mm, 1.1 mm): each decade of load divides
    the difference by more than 10."""
    rel = []
    for g in (9.81, 0.981, 0.0981):
        sag = {}
        for form in ("exact", "nepvp"):
            m = build_model(_arm(g), form, elements=4)
            st = m.state(actuated=[0.3, 0.5])
            sag[form] = m.static_deflection(st).pose[:2] - st.pose[:2]
        rel.append(np.linalg.norm(sag["exact"] - sag["nepvp"]) / np.linalg.norm(sag["exact"]))
    assert rel[0] > 1e-3             # at g the arm's rotations are not small: they differ
    assert rel[1] < rel[0] / 10 and rel[2] < rel[1] / 10, rel
    assert rel[2] < 2e-5


@pytest.mark.parametrize("amp, dev_tol, tau_tol", [(0.2, 0.04, 0.02), (0.02, 4e-4, 2e-4)])
def test_motion_converges_to_nepvp_as_the_motion_shrinks(amp, dev_tol, tau_tol):
    """Both shaft angles through amp rad in 1 s (rest to rest), under 5 amp g (the loads
    shrink with the motion), 1.5 s from the static deflection: the tip's deviation from
    the rigid arm and the torques agree to dev_tol and tau_tol of their peaks. Measured:
    2.0 % and 1.1 % at amp 0.2 (a 0.15 m deviation: 17 % of the arm), 1.5e-4 and 6.3e-5 at
    0.02 (about 100x less per decade: second order)."""
    spec = _arm(9.81 * amp * 5)
    traj = RestToRest((0.0, 0.0), (amp, amp), t0=0.0, tf=1.0, space="joint")
    times = uniform_times(0.0, 1.5, 2e-3)
    out = {}
    for form in ("exact", "nepvp"):
        r = build_model(spec, form, elements=4).simulate_motion(traj, times)
        out[form] = (r.ee_position - r.rigid_ee_position, r.efforts)
        if form == "exact":
            # the run says what its step resolves
            assert r.summary["integrator_step_s"] == pytest.approx(2e-3)
            assert any("integrator step" in w and "not resolved" in w for w in r.warnings)
    (d, tau), (d_ref, tau_ref) = out["exact"], out["nepvp"]
    assert np.abs(d - d_ref).max() < dev_tol * np.abs(d_ref).max()
    assert np.abs(tau - tau_ref).max() < tau_tol * np.abs(tau_ref).max()


def test_the_tangent_at_rest_is_the_derivative_of_the_residual():
    """The exact tangent at a sagged rest state (Hessian of the potential through the
    coordinate map, jets) against central differences of the residual (step 1e-6:
    truncation ~1e-12, round-off eps |c| / h ~ 1e-9 of the largest entry)."""
    from elastodyn.formulations.base import NonlinearModel
    m = build_model(_arm(), "exact", elements=2)
    st = m.static_deflection(m.state(actuated=[0.3, 0.5]))
    K, _ = m._tangent(st)
    K_fd, _ = NonlinearModel._tangent(m, st)
    np.testing.assert_allclose(K, K_fd, atol=1e-7 * np.abs(K_fd).max())


def test_map_and_convergence_through_the_contract(capsys):
    """The generic verbs take the formulation with no code of their own: ``map`` along a
    line of the shaft angles and ``convergence`` in elements give NE-PVP's linear
    frequencies (the same finite elements without preload) to 1e-8; ``map`` along a
    circle of the tip runs too (the rigid arm's inverse kinematics)."""
    from cli_helpers import run_json
    args = ["--elements", "4", "--path", "line", "--from", "0", "0", "--to", "0.5", "0.5",
            "--points", "3", "--count", "3"]
    maps = [run_json(capsys, ["map", "arm-yu2019", "--formulation", f, *args, "--json"])
            for f in ("exact", "nepvp")]
    np.testing.assert_allclose(maps[0]["frequencies_hz"], maps[1]["frequencies_hz"],
                               rtol=1e-8)
    conv = [run_json(capsys, ["convergence", "arm-yu2019", "--formulation", f,
                              "--max-elements", "2", "--count", "3", "--json"])
            for f in ("exact", "nepvp")]
    np.testing.assert_allclose(conv[0]["frequencies_hz"], conv[1]["frequencies_hz"],
                               rtol=1e-8)
    assert conv[0]["formulation"] == "exact"
    circle = run_json(capsys, ["map", "arm-yu2019", "--formulation", "exact", "--path",
                               "circle", "--centre", "0.5", "0.2", "--radius", "0.1",
                               "--points", "3", "--count", "2", "--json"])
    assert np.asarray(circle["frequencies_hz"]).shape == (3, 2)


@pytest.mark.parametrize("args, flag", [
    (["--integrator-step", "1e-300"], "--integrator-step"),
    (["--integrator-step", "-1"], "--integrator-step"),
    (["--method", "rk4"], "--method"),
    # found by the bad-input probe: radau never ended (the axial modes), a step above
    # the output step was silently replaced, absurd gains gave 1e300 N m with exit 0
    (["--controller", "none", "--method", "radau"], "--method"),
    (["--controller", "none", "--integrator-step", "1"], "--integrator-step"),
    (["--controller", "pd", "--kd", "1e300"], "--kd"),
    (["--controller", "pd", "--kp", "1e300"], "--kp"),
])
def test_bad_engine_options_are_refused(capsys, args, flag):
    """One line, exit 2, naming the option (a step that would take 1e300 steps is
    refused before the run starts)."""
    from cli_helpers import run
    code, out, err = run(capsys, ["simulate", "arm-yu2019", "--formulation", "exact",
                                  "--duration", "0.1", *args])
    assert code == 2 and len(err) == 1 and flag in err[0], err


def test_pd_loop_tends_to_the_prescribed_motion_as_its_gains_stiffen():
    """The closed-loop engine (all coordinates free, a joint PD) against the motion-driven
    one (the shaft angles prescribed), another code path: as kp grows the joints follow
    the reference to O(tau / kp) and the end-effector and the torques tend to the
    prescribed run's. Both joints 0.3 / 0.2 rad in 1 s (septic rest to rest), 2
    elements per link, no Coulomb friction, kd = 2 sqrt(kp J) (J ~ 1.1 kg m^2, the
    first joint's inertia). Measured: the tip differs by 3.8e-2 and 4.1e-3 m, the
    torques by 2.4 and 0.37 N m, at kp = 1e3 and 1e4 N m/rad: one decade each."""
    from elastodyn.analysis.simulate import simulate_controlled, simulate_motion
    from elastodyn.trajectories.polynomial import RestToRest
    m = build_model(_arm(), "exact", elements=2)
    tr = RestToRest(np.array([0.0, 0.0]), np.array([0.3, 0.2]), t0=0.0, tf=1.0, order=7,
                    space="joint")
    ref = simulate_motion(m, tr, duration=1.2, step=2e-3)
    diff = []
    for kp in (1e3, 1e4):
        r = simulate_controlled(m, tr, {"kind": "pd", "kp": kp, "kd": 2 * np.sqrt(1.1 * kp)},
                                duration=1.2, step=2e-3)
        diff.append((np.abs(np.asarray(r["ee_position_m"]) - ref["ee_position_m"]).max(),
                     np.abs(np.asarray(r["torque_nm"]) - ref["torque_nm"]).max()))
    assert diff[1][0] < diff[0][0] / 5 and diff[1][1] < diff[0][1] / 5, diff
    assert diff[1][0] < 0.01 and diff[1][1] < 0.02 * np.abs(ref["torque_nm"]).max(), diff


def test_a_soft_arm_hangs_below_its_root_or_is_refused_by_its_strain():
    """Yu's arm with softer links, the actuators locked straight out under gravity: the
    static equilibrium is the one a released, damped arm settles in, each link hanging
    below the last (plain Newton from the straight pose had found a link looped back
    over its root, tip above the base, exit 0, at E / 40; a section flipped by pi had
    stored no energy at E / 20); softer still, the fibres strain beyond 1 % and the
    equilibrium is refused by name. Checked: the joints and tip descend monotonically
    (y decreasing along the arm) and lower as E drops."""
    from elastodyn.exceptions import ModelError
    last = None
    for k in (2.0, 5.0, 10.0, 40.0):
        spec = load_description("arm-yu2019", [f"links.{i}.E={2.06e11 / k}" for i in (0, 1)])
        m = build_model(spec, "exact")
        try:
            st = m.static_deflection(m.state())
        except ModelError as exc:
            assert "strains an element" in str(exc) and k >= 10.0
            continue
        xy = m.joint_positions(st.q)
        assert np.all(np.diff(xy[:, 1]) < 0)              # every link hangs down
        assert np.all(xy[1:, 0] > 0)                      # none folded back over the root
        if last is not None:
            assert xy[-1, 1] < last                       # softer: lower
        last = xy[-1, 1]
