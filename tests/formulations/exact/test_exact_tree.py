"""The geometrically exact formulation on planar tree robots (issue 31) against
independent references: NE-PVP (Briot & Khalil 2013) and the floating frame of reference
(Rosyid & El-Khasawneh 2020), which build the same cubic finite elements by other code
(symbolic Newton-Euler, FFRF with multipliers), Lagrange's equations by finite
differences of the energies (the derivatives of the loop closure), energy conservation,
and a robot unlike the papers'."""
import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from elastodyn.analysis.modes import modes
from elastodyn.description.files import load_description
from elastodyn.description.materials import Material, Section
from elastodyn.description.tree import FlexibleBeam, MDHJoint, RigidBody, TreeRobot
from elastodyn.exceptions import InputError, ModelError
from elastodyn.formulations.registry import build_model, formulations_for

STEEL = Material(E=2.1e11, G=8.1e10, rho=7850.0)
SEC = Section.rectangle(0.004, 0.010)


def rrrrr(*, all_beams: bool = False, gravity=(0.0, -9.81, 0.0), friction: bool = False):
    """A planar RRRRR five-bar unlike the papers' robots: revolute motors 0.25 m apart,
    links of 0.30, 0.42, 0.34, 0.38 m in steel 10 x 4 mm, hubs with rotary inertia and
    motor inertias, a platform with its centre of mass 3 cm off its joint, gravity
    along -y0 (default). ``all_beams``: the proximal links are beams too (a beam carrying a beam
    at its tip). Home: the motors at 1.2 and 1.9 rad, the upper assembly."""
    L1, L2, L3, L4, D = 0.30, 0.42, 0.34, 0.38, 0.25
    q1, q4 = 1.2, 1.9
    B1 = np.array([L1 * math.cos(q1), L1 * math.sin(q1)])
    B2 = np.array([D + L3 * math.cos(q4), L3 * math.sin(q4)])
    d = np.linalg.norm(B2 - B1)
    a = (L2 ** 2 - L4 ** 2 + d * d) / (2 * d)
    u = (B2 - B1) / d
    P = B1 + a * u + math.sqrt(L2 ** 2 - a * a) * np.array([-u[1], u[0]])
    t2, t4 = math.atan2(*(P - B1)[::-1]), math.atan2(*(P - B2)[::-1])
    home = {"q1": q1, "q2": t2 - q1, "q3": t4 - t2, "q4": q4, "q5": t4 - q4}
    joints = (MDHJoint("q1", 0, "revolute", True), MDHJoint("q2", 1, "revolute", d=L1),
              MDHJoint("q3", 2, "revolute", d=L2), MDHJoint("q4", 0, "revolute", True, d=D),
              MDHJoint("q5", 4, "revolute", d=L3), MDHJoint("tip", 5, "fixed", d=L4))
    hub = RigidBody(0.4, (0.0, 0.0, 0.0), ((0, 0, 0), (0, 0, 0), (0, 0, 2e-4)))
    m, c = 0.5, 0.03
    plat = RigidBody(m, (m * c, 0.0, 0.0),
                     ((1e-4, 0, 0), (0, 1e-4 + m * c * c, 0), (0, 0, 1e-3 + m * c * c)))
    bodies = {1: hub, 2: FlexibleBeam(L2, SEC, STEEL), 4: hub, 5: FlexibleBeam(L4, SEC, STEEL)}
    if all_beams:
        bodies.update({1: FlexibleBeam(L1, SEC, STEEL), 4: FlexibleBeam(L3, SEC, STEEL)})
    fr = ({"viscous": {"q1": 0.02, "q4": 0.03, "q2": 0.01}, "coulomb": {"q1": 0.05}}
          if friction else {})
    return TreeRobot("rrrrr", joints, bodies, terminals=(3, 6), platform=plat,
                     gravity=tuple(gravity), closure_rows=(0, 1, 5), home=home,
                     motor_inertia={"q1": 3e-3, "q4": 2e-3}, **fr)


def _freqs(robot, form, elements, count=8):
    m = build_model(robot, form, elements=elements)
    return modes(m, m.state(), count=count)["frequencies_hz"]


@pytest.mark.parametrize("robot, other, elements, rtol", [
    ("prrrp-briot2013", "nepvp", 3, 1e-6), ("3prr-rosyid2020", "ffrf", 2, 1e-6),
    ("slider-crank-simeon", "ffrf", 3, 1e-6), ("rrrrr", "nepvp", 3, 1e-6),
    ("rrrrr-beams", "nepvp", 2, 1e-6)])
def test_modes_equal_the_linear_finite_elements_of_another_formulation(robot, other,
                                                                       elements, rtol):
    """About the placement (the static equilibrium under gravity, actuators locked) the
    exact model linearizes to the same cubic elements as NE-PVP and FFRF, reached by
    other code: jets through the joints' transforms and the loop closure's implicit
    derivatives here; the symbolic Newton-Euler and the floating frames with multipliers
    there. They differ only through the static sag, to second order in its rotations
    (the linear models keep the membrane stiffening, not the rotations of the sag): the
    sags here are below 1e-3 rad, so 1e-6 relative; measured 1e-8 and below, with
    Rosyid's fitted quadratic densities, a beam carrying a beam, hubs, motor inertias and
    an offset platform (Rosyid's links: the elements' 5 Gauss points integrate the
    kinetic energy of the cubic axis times the quadratic density exactly, as FFRF's
    integrals do; with 4 points it was 1.5e-6 off at 2 elements)."""
    desc = (rrrrr() if robot == "rrrrr" else rrrrr(all_beams=True) if robot == "rrrrr-beams"
            else load_description(robot))
    np.testing.assert_allclose(_freqs(desc, "exact", elements),
                               _freqs(desc, other, elements), rtol=rtol)


def test_the_formulation_takes_planar_trees_and_refuses_spatial_beams():
    assert "exact" in formulations_for(rrrrr())
    sp = replace(rrrrr(), bodies={**rrrrr().bodies, 2: FlexibleBeam(0.42, SEC, STEEL,
                                                                      spatial=True)})
    assert "exact" not in formulations_for(sp)
    with pytest.raises(InputError, match="--elements"):
        build_model(rrrrr(), "exact", elements=0)


def test_potential_forces_and_stiffness_are_derivatives_of_the_energy():
    """At rest the bias is the potential's gradient and the tangent its Hessian, along
    the contract's coordinates with the passive joints closed again at every point:
    central differences of V (step 1e-5: error O(h^2 V''') ~ 1e-10 relative, round-off
    eps V / h ~ 1e-11) check the closure's first and second implicit derivatives."""
    m = build_model(rrrrr(all_beams=True), "exact", elements=1)
    rng = np.random.default_rng(5)
    st = m.state()
    q = st.q + np.concatenate([0.02 * rng.standard_normal(2),
                               1e-3 * rng.standard_normal(m.n_elastic)])
    st = m.at(st, q=q, v=np.zeros(m.n))

    def V(qq):
        return m.energy(m.at(st, q=qq))[1]

    def c(qq):
        return m.bias(m.at(st, q=qq))

    h = 1e-5
    E = np.eye(m.n)
    grad = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in E])
    np.testing.assert_allclose(m.bias(st), grad, atol=1e-6 * np.abs(grad).max())
    K_fd = np.column_stack([(c(q + h * e) - c(q - h * e)) / (2 * h) for e in E])
    K, _ = m._tangent(st)
    assert np.abs(K - K_fd).max() < 1e-5 * np.abs(K).max()


def test_velocity_forces_are_lagrange_equations_of_the_kinetic_energy(velocity_forces):
    """h(q, qd) = dM/dt qd - d(qd^T M qd / 2)/dq from central differences of the mass
    matrix (passive joints and motor inertias included): an independent path to the
    velocity forces the model computes from the second derivatives of the closure and of
    the beams. Step 1e-6: round-off eps |M| / step ~ 1e-10 of |h|, truncation
    step^2 M''' / 6, large here (the closure's second derivatives reach 1e3: the
    distal links turn 25 rad per metre of the proximal links' stretch), measured 5e-9 of
    |h|; 1e-7 allowed."""
    m = build_model(rrrrr(all_beams=True, gravity=(0.0, 0.0, 0.0)), "exact", elements=1)
    h_model, h_ref, _, _ = velocity_forces(m, m.state(), np.random.default_rng(3))
    assert np.abs(h_model - h_ref).max() < 1e-7 * np.abs(h_ref).max()


def test_free_vibration_conserves_energy(released_energy):
    """The motors held, the five-bar released undeformed under gravity (along -x0: it
    bends the links, which stand nearly upright): no work is done on it, so kinetic plus
    potential energy stays that of the start, at the output samples with rates from
    central differences of the positions (0.25 ms against the bending modes excited, 33
    to 131 Hz: (omega h)^2 / 6 <= 7e-3 of their kinetic energy); the generalized-alpha
    method (rho_inf 0.9) dissipates only the unresolved (axial) modes. Tolerance 2 % of
    the vibration energy; measured 0.43 % over 0.05 s."""
    m = build_model(rrrrr(gravity=(-9.81, 0.0, 0.0)), "exact", elements=1)
    total, vibration = released_energy(m, m.home_actuated(), 0.05, 2.5e-4)
    assert vibration > 1e-4                          # J: the release excites the structure
    assert np.abs(total[5:-5] - total[0]).max() < 0.02 * vibration


def test_a_pose_where_the_loops_cannot_close_is_a_model_error():
    """Motors turned outward (elbows 0.89 m apart, the distal links 0.80 m long together):
    the closure fails by name (a ModelError: the robot's range, not a wrong number)."""
    m = build_model(rrrrr(), "exact", elements=1)
    with pytest.raises(ModelError, match="loop closure"):
        m.state(actuated=[math.pi, 0.0])


def test_quasi_static_deflection_under_accelerations_equals_nepvp():
    """The deflection under gravity and the d'Alembert loads of accelerated actuators
    (``compensate``'s quasi-static step) equals NE-PVP's at 3 elements per beam (the
    discretizations then agree to 1e-4 of the sag; the two models differ at second order
    in the 1e-4 rad rotations of the sag): 1e-3 relative. Before its tangent carried
    d(M a)/dq, the exact model's Newton diverged here."""
    from elastodyn.analysis.workspace import static_end_effector_deflection
    d = load_description("prrrp-briot2013")
    out = []
    for form in ("exact", "nepvp"):
        m = build_model(d, form, elements=3)
        st = m.state(actuated=[0.01, -0.01], rates=[0.1, 0.0], accelerations=[3.0, -2.0])
        out.append(static_end_effector_deflection(m, st, inertial=True))
    assert np.linalg.norm(out[0]) > 5e-6              # m: the loads bend the beams
    np.testing.assert_allclose(out[0], out[1], atol=1e-3 * np.linalg.norm(out[1]))


@pytest.mark.slow
def test_compensation_puts_the_deflected_five_bar_on_its_path():
    """``compensate`` on the exact model (a joint-space motion of a robot without
    inverse kinematics: Gauss-Newton on FK(q) + D(q) = X_d, then the exact run of the
    command): the end-effector error falls by more than 5x (measured 9x at 16 samples,
    where the quintic spline between the samples limits it; 325x at 31 samples, as
    NE-PVP's 309x: ``elastodyn compensate prrrp-briot2013 --formulation exact --elements 1
    --trajectory rest-to-rest --to 0.05 0.05 --motion-time 0.3``)."""
    from elastodyn.analysis.motion_design import compensate_motion
    from elastodyn.trajectories.polynomial import RestToRest
    m = build_model(load_description("prrrp-briot2013"), "exact", elements=1)
    a0 = m.home_actuated()
    traj = RestToRest(a0, a0 + 0.05, t0=0.0, tf=0.3, order=7, space="joint")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compensate_motion(m, traj, duration=0.3, step=2e-3, samples=16)
    assert r.summary["peak_error_nominal_m"] > 5 * r.summary["peak_error_compensated_m"]


@pytest.mark.slow
def test_driven_slider_crank_tends_to_simeons_linear_rod_as_it_stiffens():
    """Simeon's slider crank, the crank driven at 150 rad/s from the rod at rest and
    undeformed (``run_drive``), against the independent reference integration
    (tests/references/reference_slider_crank.py: Simeon's two sine modes in the chord
    frame, linear elasticity, DOP853). With E x 100 the rod's axial load is 1e-4 of its
    Euler load and the models must agree: measured 0.70 % of the peak mid-span
    deflection at 2 elements (0.56 % at 4: the reference's two-mode truncation is
    0.4 %; 1.5 % allowed); the slider within 1e-4 of the crank length. At the paper's
    E the exact rod deflects 9 to 10 % less:
    its tension (the slider's and its own inertia, ~5 % of the Euler load) stiffens it,
    which a linear rod cannot show."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "references"))
    import reference_slider_crank as ref
    from elastodyn.description.presets import get_preset
    t = np.linspace(0.0, 0.006, 4)
    dev = {}
    for s in (1.0, 100.0):
        r = ref.simulate(0.006, t, variant="consistent", q0=np.zeros(4), qd0=np.zeros(4),
                         E=ref.EE * s)
        m = build_model(get_preset("slider-crank-simeon").with_stiffness_scale(s), "exact",
                        elements=2)
        run = m.run_drive([150.0], t, step=4e-5 / math.sqrt(s))
        mid = np.array([m.midspan_deflections(q)[0] for q in run.q])
        peak = np.abs(r["midspan_deflection"]).max()
        dev[s] = np.abs(mid - r["midspan_deflection"]).max() / peak
        x3 = np.array([m.joint_positions(q)[3][0] for q in run.q])
        assert np.abs(x3 - r["x3"]).max() < 1e-4 * ref.L1 * max(1.0, 100 / s)
        assert run.residual.max() < 1e-12 and not run.message
    assert dev[100.0] < 0.015
    assert dev[1.0] > 0.05


def _pulse_3prr():
    from elastodyn.analysis.scenario import build_efforts
    from elastodyn.description.scenarios import scenario
    return build_efforts(scenario("3prr-rosyid2020", "pulse")["efforts"], 3)


def test_force_driven_runs_follow_ffrf_and_stop_at_its_singularity():
    """Force-driven runs from rest (``run_efforts``, all coordinates free, consistent
    initial accelerations) against the floating-frame formulation's (Rosyid's,
    partitioning with Radau), another engine on other coordinates:

    * the five-bar above without motor inertias (FFRF carries none) under gravity and
      ramped torques, 0.06 s at 0.25 ms: the rigid counterparts (both) to 1e-6 rad
      (measured 1.1e-8: the integrators' errors), the flexible ones (1 element per link)
      to 1e-3 rad (measured 8e-5 at 2 elements: FFRF's linear beams against the exact
      ones, 3.6e-7 with every modulus x 100);
    * the 3-PRR's pulse with rigid links: both stop at the direct-kinematics singularity
      (FFRF at 0.388 s at 1 ms steps, 0.3898 s at 0.1 ms); the exact model within 3 ms
      (measured 1 ms and 1.6 ms), where before it followed its assembly branch through
      the fold to 0.593 s."""
    t = np.linspace(0.0, 0.06, 7)

    def ef(tt):
        return np.array([0.3, -0.2]) * min(1.0, tt / 0.02)
    rob = replace(rrrrr(all_beams=True), motor_inertia={})
    for rigid, tol in ((True, 1e-6), (False, 1e-3)):
        A = []
        for form in ("exact", "ffrf"):
            m = build_model(rob, form, elements=1)
            m = m.rigid_counterpart() if rigid else m
            r = m.run_efforts(ef, t, step=2.5e-4)
            assert not r.message and len(r.q) == len(t)
            A.append(np.array([m.actuated_of(q) for q in r.q]))
        assert np.abs(A[0] - A[1]).max() < tol
        assert np.abs(A[0][-1] - A[0][0]).max() > 0.01     # rad: it moves
    d = load_description("3prr-rosyid2020")
    t = np.linspace(0.0, 0.6, 61)
    ends = [build_model(d, f, elements=2).rigid_counterpart().run_efforts(
        _pulse_3prr(), t, step=1e-3).singular_time for f in ("exact", "ffrf")]
    assert ends[1] is not None and abs(ends[0] - ends[1]) < 3e-3


def test_cli_runs_the_presets_force_driven_scenarios_with_the_exact_model(capsys):
    """``simulate slider-crank-simeon --formulation exact``: the preset's driven scenario
    (the crank at 150 rad/s) on the exact model, which starts undeformed (the
    scenario's initial state is in Simeon's sine-mode coordinates: ffrf's) at its own
    step; the layout of the force-driven runs (mid-span deflection, joint positions,
    the loop closure's residual)."""
    import json
    from elastodyn.cli import main
    assert main(["simulate", "slider-crank-simeon", "--formulation", "exact", "--elements",
                 "2", "--duration", "0.004", "--step", "0.001", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["formulation"] == "exact" and len(d["midspan_deflection_m"]) == 5
    assert d["summary"]["max_constraint_residual"] < 1e-12
    xs = [row[6] for row in d["joint_positions_m"]]       # joint s (4th): x
    assert xs[0] == pytest.approx(0.45, abs=1e-6) and xs[-1] < xs[0]


def test_a_home_that_does_not_close_the_loops_is_refused_by_name():
    """The description's home must be an assembled configuration of the rigid robot
    (the closure's branch is taken from it): 0.1 rad off on a passive joint is an
    InputError naming ``home``."""
    r = rrrrr()
    bad = replace(r, home={**r.home, "q2": r.home["q2"] + 0.1})
    with pytest.raises(InputError, match="home"):
        build_model(bad, "exact", elements=1)


def test_careless_inputs_end_fast_by_name_and_the_step_sees_the_preload():
    """Actuated coordinates 1e300 or 1e4 from home: the loop closure fails by name at
    once (it took 1e302 continuation steps: a memory error, or a hang at 1e4). A hanging
    arm whose modulus makes gravity stretch it by more than 1 % is refused by name
    (small-strain elements), the stiff one is not. The run's step comes from the
    preloaded tangent (gravity through the five-bar's loop: 40.7 Hz at 2 elements per
    beam, where the unloaded structure's 28.5 Hz set a step 1.4 times too long)."""
    m = build_model(load_description("prrrp-briot2013"), "exact", elements=1)
    for a in (1e300, 1e4):
        with pytest.raises(ModelError, match="loop closure"):
            m.state(actuated=[a, a])
    for E, fails in ((5e7, True), (2.06e11, False)):
        arm = build_model(load_description("arm-yu2019", [f"links.0.E={E}",
                                                          f"links.1.E={E}"]),
                          "exact", elements=2)
        st = arm.state(actuated=[-math.pi / 2, 0.0])
        if fails:
            with pytest.raises(ModelError, match="strains an element"):
                arm.static_deflection(st)
        else:
            arm.static_deflection(st)
    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.trajectories.polynomial import RestToRest
    m = build_model(load_description("prrrp-briot2013"), "exact", elements=2)
    q0 = m.home_actuated()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate_motion(m, RestToRest(q0, q0, t0=0.0, tf=1.0, order=7, space="joint"),
                            duration=0.002, step=1e-3)
    f = modes(m, m.static_deflection(m.state()), count=1, preload=True)["frequencies_hz"]
    assert r.summary["lowest_frequency_hz"] == pytest.approx(f[0], rel=1e-9)
    assert f[0] > 1.3 * modes(m, m.state(), count=1, preload=False)["frequencies_hz"][0]


def test_a_users_motion_on_a_driven_preset_is_not_given_the_scenarios_initial_state(capsys):
    """``simulate slider-crank-simeon --trajectory rest-to-rest ...``: the drive scenario's
    initial elastic state (a mapping, in Simeon's sine-mode coordinates) is not the
    user's motion's ``--initial``; it was pushed onto it and refused (``invalid
    --initial: got {...}``), with nepvp as with exact."""
    from elastodyn.cli import main
    assert main(["simulate", "slider-crank-simeon", "--formulation", "nepvp", "--trajectory",
                 "rest-to-rest", "--to", "1", "--motion-time", "0.01", "--duration", "0.002",
                 "--step", "0.001"]) == 0
    assert "initial state: static" in capsys.readouterr().err    # the summary


def test_modes_about_a_steady_spin_tend_to_the_rotating_beam(tmp_path):
    """``modes --speed`` on the exact model: a steel link spinning at 100 rad/s about its
    hub, against the rotating-beam equation (centrifugal stiffening and in-plane
    softening, Galerkin on polynomials: tests/description/test_yaml_robots.py, which
    checks it against the Southwell coefficient). Measured relative errors of the two
    lowest frequencies: 9.1e-4, 6.2e-4 at 8 elements; 3.0e-4, 2.0e-4 at 16; 1.5e-4, 8.3e-5
    at 32: second order down to a floor of about 1e-4 of mode 1, what the reference
    leaves out (the beam's axial motion coupled by Coriolis forces, (Omega /
    omega_axial)^2 = 4e-5, and its stretch). Bounds: 4e-4 at 16 elements, a ratio above
    2.5 from 8 to 16, the spin stiffening, no damping (gyroscopic)."""
    import importlib.util
    import pathlib
    here = pathlib.Path(__file__).resolve().parents[2] / "description" / "test_yaml_robots.py"
    spec_ = importlib.util.spec_from_file_location("yaml_robots_ref", here)
    ref_mod = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(ref_mod)
    f = tmp_path / "spin.yaml"
    f.write_text(ref_mod.link_yaml(0.0, 0.0))
    Om = 100.0
    ref = ref_mod.rotating_beam_frequencies(2, ref_mod.E * ref_mod.I,
                                            ref_mod.RHO * ref_mod.A, ref_mod.L, Om)
    ref0 = ref_mod.rotating_beam_frequencies(1, ref_mod.E * ref_mod.I,
                                             ref_mod.RHO * ref_mod.A, ref_mod.L, 0.0)
    spec = load_description(str(f))
    errs = []
    for n in (8, 16):
        m = build_model(spec, "exact", elements=n)
        r = modes(m, m.state(), count=2, speed=[Om])
        w = np.asarray(r["omega_rad_s"])
        errs.append(np.abs(w / ref - 1).max())
        assert w[0] > 1.01 * ref0[0]
        assert np.abs(np.asarray(r["damping_ratio"])).max() < 1e-8
    assert errs[1] < 4e-4 and errs[0] / errs[1] > 2.5
