"""The planar floating-frame multibody formulation (Rosyid & El-Khasawneh 2020) against
references independent of it:

* single flexible bodies: natural frequencies of a beam whose body frame is held, for
  each boundary condition of the frame (fixed-free: cantilever; fixed-pinned:
  clamped-pinned; pinned-pinned: simply supported), against the roots of the
  Euler-Bernoulli frequency equations; the static tip deflection under gravity against
  w L^4 / (8 EI);
* the flexible pendulum: energy conservation of the unloaded, undamped system, and the
  two solution methods (coordinate partitioning, index reduction with projection)
  agree; the constraint residual stays at round-off;
* the 3-PRR of the paper with rigid links against the independent rigid model in
  joint coordinates (tests/references/reference_rigid_3prr.py): free fall, the singular
  configuration's time;
* the five-bar of Briot & Khalil by FFRF against NE-PVP (another formulation, another
  code path): natural frequencies at a pose, no preload;
* the 3-PRR: Rayleigh-Ritz is the one-element FEM body, and the FEM frequencies
  converge with the elements; the fitted density gives the paper's mass properties.
"""
from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
import scipy.linalg as sl

import reference_rigid_3prr as ref
from elastodyn.analysis.modes import modes
from elastodyn.cli import main
from elastodyn.description.files import load_description
from elastodyn.description.presets import get_preset
from elastodyn.exceptions import InputError
from elastodyn.fem.ffrf import BeamShape, ffrf_invariants, fitted_mass_per_length
from elastodyn.formulations.ffrf.model import FFRFModel
from elastodyn.formulations.ffrf.multibody import (Joint, Marker, MultibodySystem,
                                                   flexible_body)
from elastodyn.formulations.ffrf.solve import integrate
from elastodyn.formulations.registry import build_model

L, E, RHO, B, H = 0.5, 70e9, 2800.0, 0.02, 0.005
AREA, IZ = B * H, B * H ** 3 / 12
MU = RHO * AREA


def _pendulum(boundary="fixed-free", elements=8, gravity=(0.0, 0.0)):
    body = flexible_body("link", BeamShape(L, elements, boundary), MU, EA=E * AREA, EI=E * IZ)
    pin = Joint("q1", "revolute", Marker(-1), Marker(0))
    return MultibodySystem([body], [pin], gravity=gravity, actuated=["q1"])


def _locked_omegas(system, q):
    """Natural frequencies [rad/s] with the actuated coordinates locked: the elastic block
    of the partitioned mass matrix and the elastic stiffness."""
    Mr, _, _, _ = system.reduced(q, np.zeros(system.n_actuated + system.n_elastic))
    na = system.n_actuated
    lam = sl.eigh(system.elastic_stiffness(), Mr[na:, na:], eigvals_only=True)
    return np.sqrt(lam)


# roots beta_k L of the Euler-Bernoulli frequency equations (omega = (beta L)^2
# sqrt(EI / (mu L^4))): cos cosh = -1 (clamped-free), tan = tanh (clamped-pinned),
# sin = 0 (pinned-pinned); solved here by bracketing
def _roots(f, brackets):
    from scipy.optimize import brentq
    return np.array([brentq(f, a, b, xtol=1e-14) for a, b in brackets])


BETAS = {
    "fixed-free": _roots(lambda x: math.cos(x) * math.cosh(x) + 1, [(1, 3), (4, 6), (7, 9)]),
    "fixed-pinned": _roots(lambda x: math.tan(x) - math.tanh(x), [(3.5, 4.5), (6.5, 7.5),
                                                                   (9.5, 10.5)]),
    "pinned-pinned": np.array([math.pi, 2 * math.pi, 3 * math.pi]),
}


@pytest.mark.parametrize("boundary", list(BETAS))
def test_single_body_frequencies_for_each_boundary_condition(boundary):
    """The body frame held still: the frame's boundary conditions are the beam's supports
    (fixed-free: cantilever, fixed-pinned: clamped-pinned, pinned-pinned: simply
    supported). 8 cubic elements: each bending frequency lies above the exact one (a
    conforming Ritz method) by less than the element error bound (beta h)^4 / 720 of
    omega^2 (consistent-mass cubic elements)."""
    body = flexible_body("link", BeamShape(L, 8, boundary), MU, EA=E * AREA, EI=E * IZ)
    w = np.sqrt(sl.eigh(body.K, body.inv.S_ff, eigvals_only=True))
    exact = BETAS[boundary] ** 2 * math.sqrt(E * IZ / (MU * L ** 4))
    bending = w[:3]      # the axial modes are far above (EA >> EI / L^2)
    err = bending / exact - 1
    assert np.all(err > -1e-12) and np.all(err < (BETAS[boundary] / 8) ** 4 / 720), err


def test_locked_motor_on_a_beam_is_a_cantilever_whatever_the_frame():
    """A revolute joint's coordinate is the angle of the beam's tangent at the joint (frame
    angle plus slope): locking it clamps the beam there, so the pinned-pinned frame and
    the fixed-free frame give the same cantilever (the frame is a choice of coordinates,
    not physics), to the discretization error of the two bases."""
    exact = BETAS["fixed-free"][0] ** 2 * math.sqrt(E * IZ / (MU * L ** 4))
    for boundary in ("fixed-free", "pinned-pinned"):
        s = _pendulum(boundary)
        w = _locked_omegas(s, np.zeros(s.n))
        assert w[0] == pytest.approx(exact, rel=1e-5), boundary


def test_pinned_free_is_refused_with_the_reason():
    with pytest.raises(InputError, match="pinned-free.*undetermined"):
        BeamShape(L, 2, "pinned-free")


@pytest.mark.parametrize("elements", [1, 3])
def test_static_tip_deflection_under_gravity(elements):
    """Cantilever (frame clamped to the ground by a rigid joint) under its weight: the
    cubic elements' nodal values are exact for a uniform load, v(L) = -mu g L^4 / (8 EI)
    to round-off (one element = the Rayleigh-Ritz body of eq. (52))."""
    body = flexible_body("link", BeamShape(L, elements), MU, EA=E * AREA, EI=E * IZ)
    clamp = Joint("c", "rigid", Marker(-1), Marker(0))
    s = MultibodySystem([body], [clamp], gravity=(0.0, -9.81))
    q = np.zeros(s.n)
    el = s.el_index
    f = s.forces(q, np.zeros(s.n))[el]          # gravity only (q_f = 0)
    qf = np.linalg.solve(s.elastic_stiffness(), f)
    tip = body.shape(1.0) @ qf
    assert tip[1] == pytest.approx(-MU * 9.81 * L ** 4 / (8 * E * IZ), rel=1e-10)


def test_pendulum_conserves_energy_and_the_two_methods_agree():
    """A flexible pendulum released horizontal under gravity (one element: 6 states of
    speed), by scipy's Radau: the energy is constant to the solver tolerance, the
    partitioned and the projected solutions agree, and the constraints hold at
    round-off."""
    s = _pendulum(elements=1, gravity=(0.0, -9.81))
    q0, qd0 = np.zeros(s.n), np.zeros(s.n)
    t = np.linspace(0.0, 0.02, 11)
    runs = {m: integrate(s, q0, qd0, t, efforts=lambda _t: np.zeros(1), method=m,
                         solver="Radau", rtol=1e-9, atol=1e-12)
            for m in ("partitioning", "projection")}
    for run in runs.values():
        e0 = sum(s.energy(run.q[0], run.qd[0]))
        e = [sum(s.energy(q, qd)) for q, qd in zip(run.q, run.qd)]
        # the energy exchanged is m g dh ~ 1e-3 J; rtol 1e-9 keeps its drift near 1e-11 J
        assert max(abs(x - e0) for x in e) < 1e-9
        assert run.residual.max() < 1e-11
    a, b = runs["partitioning"], runs["projection"]
    assert np.abs(a.q - b.q).max() < 1e-9          # two methods, same solution (rtol 1e-9)


@functools.lru_cache(maxsize=1)
def _pendulum_reference():
    s = _pendulum(elements=1, gravity=(0.0, -9.81))
    # DOP853 at 1e-12: the error of the reference 1e-4 of the finer step's
    return integrate(s, np.zeros(s.n), np.zeros(s.n), np.linspace(0.0, 0.02, 5),
                     efforts=lambda _t: np.zeros(1), solver="DOP853", rtol=1e-12,
                     atol=1e-14)


@pytest.mark.parametrize("method", ["partitioning", "projection"])
def test_generalized_alpha_converges_at_second_order_to_radau(method):
    """The same pendulum by the constant-step generalized-alpha scheme (Arnold & Bruels
    2007; partitioned ODE and index-3 DAE): the error against the DOP853 solution (rtol
    1e-12) falls by 4x when the step halves (second order; ratio between 3 and 5 allows
    for the higher-order terms), the index-3 positions satisfy the constraints at every
    step to Newton's tolerance (1e-12 m), and with rho_inf = 1 the energy drifts by less
    than 1e-5 of the energy exchanged at the finer step."""
    s = _pendulum(elements=1, gravity=(0.0, -9.81))
    q0, qd0 = np.zeros(s.n), np.zeros(s.n)
    t = np.linspace(0.0, 0.02, 5)
    ref = _pendulum_reference()
    errs = []
    for h in (2e-4, 1e-4):
        run = integrate(s, q0, qd0, t, efforts=lambda _t: np.zeros(1), method=method,
                        step=h, rho_inf=1.0)
        errs.append(np.abs(run.q - ref.q).max())
        assert run.residual.max() < 1e-11
        e = np.array([sum(s.energy(q, qd)) for q, qd in zip(run.q, run.qd)])
        exchanged = abs(s.energy(run.q[-1], run.qd[-1])[2] - s.energy(q0, qd0)[2])
    assert 3.0 < errs[0] / errs[1] < 5.0, errs
    assert np.abs(e - e[0]).max() < 1e-5 * exchanged


def _rigid_3prr():
    return FFRFModel(get_preset("3prr-rosyid2020"), {"rigid": True})


def test_start_pose_of_the_preset():
    """The issue's start: D = (0, 0.40), theta = 0; sliders from the circle-line
    intersections of the reference."""
    m = _rigid_3prr()
    st = m.state()
    assert np.allclose(st.pose, [0.0, 0.40, 0.0], atol=1e-12)
    q0 = ref.initial_configuration()
    assert np.allclose(st.q[:3], q0[:3], atol=1e-12)


def _free_fall(t_end, n, **solver):
    m = _rigid_3prr()
    s = m.system
    st = m.state()
    t = np.linspace(0.0, t_end, n)
    solver = solver or {"solver": "DOP853", "rtol": 1e-10, "atol": 1e-12}
    run = integrate(s, st.detail["q"], np.zeros(s.n), t, efforts=lambda _t: np.zeros(3),
                    **solver)
    return m, run, ref.forward_dynamics(ref.zero_forces, t_end, t_eval=t)


def test_rigid_3prr_free_fall_against_the_joint_coordinate_reference():
    """Rigid bodies (the stiff limit: the legs' and platform's mass properties as given)
    fall under gravity with free sliders: D, theta and the sliders follow the
    independent joint-coordinate model to the solver tolerances (1e-8 m and rad)."""
    m, run, sol = _free_fall(0.3, 7)
    assert run.singular_time is None and np.allclose(run.t, sol.t)
    poses = np.array([m.pose_of(q) for q in run.q])
    assert np.abs(poses[:, :2] - sol.D).max() < 1e-8
    assert np.abs(poses[:, 2] - sol.theta).max() < 1e-8
    sliders = m.tree.to_joint(np.array([m.system.actuated_coordinates(q)[0]
                                        for q in run.q]))
    assert np.abs(sliders - sol.s).max() < 1e-8
    assert run.residual.max() < 1e-11


@pytest.mark.slow
def test_rigid_3prr_free_fall_stops_at_the_singular_configuration():
    """Both models see the singular configuration (legs 1 and 3 flat) near 0.383 s; the
    run stops there and says so."""
    m, run, sol = _free_fall(0.5, 11, step=1e-4)     # generalized-alpha
    assert run.t.size == sol.t.size
    # partitioning on the sliders cannot step onto the singularity (the dependent rates
    # grow without bound near it): it stops where its closure last held, before it
    assert sol.t_singular - 5e-3 < run.singular_time <= sol.t_singular + 1e-9
    assert "singular configuration" in run.message


def test_five_bar_frequencies_equal_nepvp():
    """Briot's five-bar by FFRF and by NE-PVP (recursive Newton-Euler, element frames):
    both linear about the same pose, no preload, 4 elements per beam, the same cubic
    beam: the same frequencies to the eigen-solver's round-off (1e-8)."""
    d = load_description("prrrp-briot2013")
    a = modes(build_model(d, "ffrf", elements=4), count=6)
    b = modes(build_model(d, "nepvp", elements=4), count=6)
    assert np.allclose(a.quantities["frequencies_hz"], b.quantities["frequencies_hz"],
                       rtol=1e-8)


def test_3prr_rayleigh_ritz_is_one_element_and_fem_converges():
    r = get_preset("3prr-rosyid2020")

    def f(**o):
        m = FFRFModel(r, o)
        lin = m.linearize(m.state())
        return np.sqrt(sl.eigh(lin.K, lin.M, eigvals_only=True)[:4]) / (2 * math.pi)

    rr, f1 = f(shape="rr"), f(elements=1)
    assert np.allclose(rr, f1, rtol=1e-12)
    f2, f4, f8 = f(elements=2), f(elements=4), f(elements=8)
    # monotone from above (a conforming Ritz discretization) and converging: the change
    # from 4 to 8 elements at most a tenth of that from 2 to 4 (h^4 would give 1/16)
    assert np.all(f2 >= f4 - 1e-9) and np.all(f4 >= f8 - 1e-9)
    assert np.all(np.abs(f8 - f4) <= 0.1 * np.abs(f4 - f2) + 1e-9)


@pytest.mark.parametrize("leg", [(0.486, 8.5, 0.199, 0.1673), (0.315, 15.2425, 0.1659629, 0.1260)])
def test_fitted_density_has_the_given_mass_properties(leg):
    """The quadratic density of section 8.1's mass, centre of mass and inertia: its
    moments, integrated exactly by the 12-point rule, are the given ones (round-off)."""
    length, m, c, ig = leg
    inv = ffrf_invariants(BeamShape(length, 2), length=length,
                          mass_per_length=fitted_mass_per_length(length, m, c, ig),
                          breaks=np.linspace(0, 1, 3))
    assert inv.mass == pytest.approx(m, rel=1e-13)
    assert inv.I1[0] / m == pytest.approx(c, rel=1e-12)
    assert inv.J_oo - m * c * c == pytest.approx(ig, rel=1e-10)


def test_cli_modes_of_the_preset_and_refusals(capsys):
    import json
    assert main(["modes", "3prr-rosyid2020", "--count", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["formulation"] == "ffrf" and doc["model"]["elements"] == 4
    assert doc["robot"] == "3prr-rosyid2020"
    assert main(["modes", "3prr-rosyid2020", "--boundary", "pinned-free"]) == 2
    err = capsys.readouterr().err
    assert "pinned-free" in err and len(err.strip().splitlines()) == 1
    # NE-PVP takes the given mass properties too (the same fitted density)
    assert main(["modes", "3prr-rosyid2020", "--formulation", "nepvp", "--count", "3",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["formulation"] == "nepvp"
