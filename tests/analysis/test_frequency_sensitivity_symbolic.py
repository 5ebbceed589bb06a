"""Exact frequency sensitivities of the generated-program formulations (nepvp: Briot &
Khalil 2013; amm: Yu & Chen 2019), whose description numbers enter a symbolic program:
the complex step is carried by complex sympy numbers and a complex evaluation of the
program (symbolic.complex_eval). Checked against independent results: central finite
differences of the frequencies of models rebuilt from specs changed with ``apply_sets``
(the real, compiled path), Euler's theorem for the stiffness and the mass (homogeneous
of degree 1 in E and in the masses), the compiled program itself, and the compiled-code
cache left untouched."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from elastodyn._validate import complex_step_active
from elastodyn.analysis.frequency_sensitivity import frequency_sensitivities
from elastodyn.analysis.modes import modes
from elastodyn.description.files import apply_sets, load_description
from elastodyn.description.schema import parse_spec
from elastodyn.exceptions import InputError
from elastodyn.formulations.registry import build_model
from elastodyn.symbolic import compiled as compiled_module
from elastodyn.symbolic.compiled import compile_program
from elastodyn.symbolic.complex_eval import ComplexProgram, number

from cli_helpers import run_json  # noqa: E402  (tests/, on the path as in test_cli_*)

# Tolerance of the finite-difference checks: central differences with a relative step
# h = 1e-5 err by O(h^2) p^2 f''' / f' and by the round-off eps_f / (h s) (eps_f ~ 1e-13,
# the relative accuracy of the frequencies of the compiled models; s the
# log-sensitivity, >= 1e-2 for the columns checked): 1e-8 of the derivative for smooth
# power laws. The two lowest modes of prrrp-briot2013 are a nearly repeated pair
# (relative gap 1.4e-5): their curvature in a parameter that couples them is about
# coupling^2 / gap, and the central difference then errs by up to 2e-6 (measured,
# decreasing as h^2: 3e-8 at h = 1e-6). 1e-5 of the column's largest derivative
# covers both; a dropped or wrong term would be an O(1) error. One-sided differences
# (an entry whose decrease the description refuses) use the second-order three-point
# formula, same bound.
RTOL = 1e-5
STEP = 1e-5


def _freqs(spec, formulation, options, count, preload=None):
    m = build_model(spec, formulation, **options)
    return modes(m, m.state(), count=count, preload=preload)["frequencies_hz"]


def _fd(spec, key, value, formulation, options, count, one_sided=False, step=STEP,
        preload=None):
    d = step * abs(value) if value != 0 else step

    def f(x):
        return _freqs(apply_sets(spec, [f"{key}={float(x)!r}"]), formulation, options,
                      count, preload)
    if one_sided:                                        # (-3 f0 + 4 f1 - f2) / 2d
        return (-3 * f(value) + 4 * f(value + d) - f(value + 2 * d)) / (2 * d)
    return (f(value + d) - f(value - d)) / (2 * d)


def _check_fd(spec, keys, formulation, options, count, one_sided=(), rtol=RTOL,
              step=STEP, preload=None):
    r = frequency_sensitivities(spec, keys, formulation=formulation, options=options,
                                count=count, preload=preload)
    for j, key in enumerate(keys):
        fd = _fd(spec, key, r["nominal_values"][j], formulation, options, count,
                 one_sided=key in one_sided, step=step, preload=preload)
        scale = np.abs(fd).max()
        assert scale > 0, key
        np.testing.assert_allclose(r["d_f_d_p"][:, j], fd, rtol=0, atol=rtol * scale,
                                   err_msg=key)
    return r


# ------------------------------------------------------------------ nepvp
def test_nepvp_prrrp_equals_finite_differences():
    """Briot's five-bar (two beams, locked sliders, a platform mass at the closure)."""
    spec = load_description("prrrp-briot2013")
    r = _check_fd(spec, ["bodies.q2.beam.material.E", "bodies.q5.beam.material.rho",
                         "bodies.q2.beam.section.width", "platform.mass"], "nepvp", {}, 4)
    # the two beams are mirror images and every mode strains them equally (E of one
    # beam: 1/4 for every mode; both: 1/2, the next test)
    np.testing.assert_allclose(r["log_sensitivity"][:, 0], 0.25, atol=1e-9)


def test_nepvp_prrrp_euler_homogeneity():
    """K is homogeneous of degree 1 in the beams' E (M does not depend on E): sum_j E_j
    d ln f / d E_j = 1/2 for every mode (Euler). M is homogeneous of degree 1 in all
    the masses (the beams' rho and the platform's mass), K independent of them:
    sum = -1/2. The sliders' masses do not enter (locked actuators): zero."""
    keys_E = ["bodies.q2.beam.material.E", "bodies.q5.beam.material.E"]
    keys_m = ["bodies.q2.beam.material.rho", "bodies.q5.beam.material.rho",
              "platform.mass", "bodies.q1.rigid.mass", "bodies.q4.rigid.mass"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the locked sliders' zero derivatives
        r = frequency_sensitivities("prrrp-briot2013", keys_E + keys_m, count=6)
    S = r["log_sensitivity"]
    np.testing.assert_allclose(S[:, :2].sum(axis=1), 0.5, atol=1e-9)
    np.testing.assert_allclose(S[:, 2:].sum(axis=1), -0.5, atol=1e-9)
    np.testing.assert_array_equal(S[:, 5:], 0.0)      # locked sliders: not in M_ee


def test_nepvp_prrrp_beam_length_one_sided():
    """A beam's length (its joint stays at its abscissa: the beam grows past it; a
    shorter beam is refused by the description): the derivative for an increase,
    against the three-point one-sided difference. Modes 3 and 4 (the pair 1-2 is
    nearly repeated: a one-sided difference sees its curvature at O(h^2) only with a
    step far below the round-off limit)."""
    spec = load_description("prrrp-briot2013")
    key = "bodies.q2.beam.length"
    r = frequency_sensitivities(spec, [key], count=4)
    fd = _fd(spec, key, 0.4, "nepvp", {}, 4, one_sided=True, step=1e-6)
    np.testing.assert_allclose(r["d_f_d_p"][2:, 0], fd[2:], rtol=0,
                               atol=1e-5 * np.abs(fd[2:]).max())


@pytest.fixture(scope="module")
def slider_crank_variant():
    """Simeon's slider-crank by nepvp with other numbers: a 10 x 6 mm aluminium coupler
    in 3 elements, a heavier slider, a platform mass and given mass properties on no
    beam (rho A)."""
    spec = apply_sets(load_description("slider-crank-simeon"), [
        "bodies.a.beam.section.width=0.01", "bodies.a.beam.section.height=0.006",
        "bodies.a.beam.material.E=7.0e10", "bodies.a.beam.material.rho=2700.0",
        "bodies.s.rigid.mass=0.2", "platform.mass=0.05"])
    return spec


def test_nepvp_other_robot_equals_finite_differences(slider_crank_variant):
    spec = slider_crank_variant
    opts = {"elements": 3}
    keys = ["bodies.a.beam.material.rho", "bodies.a.beam.section.height",
            "bodies.s.rigid.mass", "bodies.a.beam.length"]
    _check_fd(spec, keys, "nepvp", opts, 5, one_sided=("bodies.a.beam.length",))
    r = frequency_sensitivities(spec, ["bodies.a.beam.material.E",
                                       "bodies.a.beam.material.rho", "bodies.s.rigid.mass",
                                       "platform.mass", "bodies.a.beam.section.height"],
                                options=opts, count=5)
    S = r["log_sensitivity"]
    # Euler: K is E-linear (1/2 from the one beam); M linear in rho, the slider's and
    # the platform's masses, K independent of them (sum -1/2)
    np.testing.assert_allclose(S[:, 0], 0.5, atol=1e-9)
    np.testing.assert_allclose(S[:, 1:4].sum(axis=1), -0.5, atol=1e-9)
    # the height h (out of the plane): A = w h and I_z = h w^3 / 12 are linear in h, so
    # K is homogeneous of degree 1 in h and M of degree 1 in (h, the slider's and the
    # platform's masses): scaling all of them leaves f unchanged, the sum is 0
    np.testing.assert_allclose(S[:, 2] + S[:, 3] + S[:, 4], 0.0, atol=1e-9)


def test_nepvp_3prr_pivoted_closure_equals_finite_differences():
    """3-PRR by nepvp: six passive joints, the closure solved by the branch-free pivoted
    elimination (Select nodes, evaluated on the real parts); given mass properties."""
    spec = load_description("3prr-rosyid2020")
    _check_fd(spec, ["bodies.b2.beam.mass_properties.mass"], "nepvp", {}, 3)


# ------------------------------------------------------------------ amm
def test_amm_arm_yu2019_equals_finite_differences():
    keys = ["links.0.E", "links.1.I", "links.0.length", "links.1.length", "links.1.mass",
            "links.0.lumped_masses.0.mass"]
    r = _check_fd(load_description("arm-yu2019"), keys, "amm", {}, 4)
    # Euler: K = diag(E_i I_i / L_i^3 kappa), M free of E: sum over links = 1/2
    S = r["log_sensitivity"]
    np.testing.assert_allclose(S[:, 0] + S[:, 1], 0.5, atol=1e-9)


@pytest.fixture(scope="module")
def three_link_arm():
    """Yu's arm with a third link, hubs, rotary inertias of the lumped masses and a
    payload (every rigid-body term of the generator)."""
    data = load_description("arm-yu2019").model_dump(mode="json", exclude_none=True)
    third = dict(data["links"][1])
    third.update(length=0.3, mass=0.15, I=3.0e-11,
                 lumped_masses=[{"mass": 0.1, "inertia": 2.0e-5, "mu": -0.5}])
    data["links"].append(third)
    data["links"][0]["hub_inertia"] = 1.0e-3
    data["links"][1]["hub_inertia"] = 5.0e-4
    data["links"][1]["lumped_masses"][0]["inertia"] = 1.0e-4
    data["payload"] = {"mass": 0.2, "inertia": 3.0e-4}
    return parse_spec(data)


def test_amm_other_arm_equals_finite_differences(three_link_arm):
    opts = {"modes": 3}
    keys = ["links.2.E", "links.2.length", "links.1.hub_inertia",
            "links.1.lumped_masses.0.inertia", "links.2.lumped_masses.0.mass",
            "payload.mass", "payload.inertia"]
    _check_fd(three_link_arm, keys, "amm", opts, 5)


def test_amm_other_arm_euler_homogeneity(three_link_arm):
    """Masses and rotary inertias scale M (homogeneous of degree 1), K is free of them:
    the log-sensitivities sum to -1/2; E of all links: 1/2. Gravity does not enter
    the linear structure (zero, said in a warning); the locked hub of link 1 neither
    (it turns with the locked shaft)."""
    E = [f"links.{i}.E" for i in range(3)]
    m = ([f"links.{i}.mass" for i in range(3)]
         + [f"links.{i}.lumped_masses.0.mass" for i in range(3)]
         + ["links.1.lumped_masses.0.inertia", "links.2.lumped_masses.0.inertia",
            "links.0.hub_inertia", "links.1.hub_inertia", "payload.mass",
            "payload.inertia"])
    r = frequency_sensitivities(three_link_arm, E + m + ["gravity"],
                                options={"modes": 3}, count=6)
    S = r["log_sensitivity"]
    np.testing.assert_allclose(S[:, :3].sum(axis=1), 0.5, atol=1e-9)
    np.testing.assert_allclose(S[:, 3:-1].sum(axis=1), -0.5, atol=1e-9)
    np.testing.assert_array_equal(S[:, -1], 0.0)
    assert np.all(S[:, E.__len__() + m.index("links.0.hub_inertia")] == 0.0)
    assert any("gravity" in w and "links.0.hub_inertia" in w for w in r.warnings)


# ------------------------------------------------------------------ gravity preload
# With the preload the reference is the static deflection under gravity (Newton in
# complex arithmetic, the imaginary part converged on its own scale) and K its tangent
# by central differences of the model (NonlinearModel._tangent; its complex step is the
# exact derivative of that difference quotient). The frequencies of the real models then
# carry ~1e-10 of relative round-off (the tangent's differences), so the finite
# differences take a relative step 1e-3: round-off 1e-10 / (1e-3 s) <= 1e-6 for the
# log-sensitivities s >= 1e-3 checked, truncation ~1e-6 (measured: agreement 3e-7 to
# 1.5e-6 of the column's largest derivative); tolerance 1e-5 as above.
PRELOAD_STEP = 1e-3


def test_nepvp_prrrp_preload_equals_finite_differences():
    keys = ["bodies.q2.beam.material.E", "platform.mass", "gravity.2"]
    _check_fd(load_description("prrrp-briot2013"), keys, "nepvp", {}, 4,
              step=PRELOAD_STEP, preload=True)


def test_amm_preload_equals_finite_differences():
    keys = ["links.0.E", "links.1.lumped_masses.0.mass", "gravity"]
    _check_fd(load_description("arm-yu2019"), keys, "amm", {}, 3, step=PRELOAD_STEP,
              preload=True)


@pytest.mark.parametrize("robot, masses, gravity", [
    ("prrrp-briot2013", ["bodies.q2.beam.material.rho", "bodies.q5.beam.material.rho",
                         "platform.mass"], "gravity.2"),
    ("arm-yu2019", ["links.0.mass", "links.1.mass", "links.0.lumped_masses.0.mass",
                    "links.1.lumped_masses.0.mass"], "gravity")])
def test_preload_mass_gravity_homogeneity(robot, masses, gravity):
    """Masses times lambda and gravity over lambda leave the loads, hence the deflection
    and the tangent stiffness, unchanged, and M times lambda: f ~ lambda^(-1/2), so
    sum over the masses of d ln f / d ln m - d ln f / d ln g = -1/2 (every mass of the
    model listed: the sliders of prrrp are locked and the arm has no payload or hub)."""
    r = frequency_sensitivities(robot, masses + [gravity], count=4, preload=True)
    S = r["log_sensitivity"]
    np.testing.assert_allclose(S[:, :-1].sum(axis=1) - S[:, -1], -0.5, atol=1e-8)


# ------------------------------------------------------------------ the evaluation
def test_complex_build_never_touches_the_cache(monkeypatch):
    """A model with a complex entry neither compiles nor looks up a library: while a
    complex step is under way, any access to the cache folder (every compilation and
    every lookup goes through cache_dir) fails the test; the real models of the same
    call (the nominal one, the zero-derivative check) use it as usual."""
    real_cache_dir = compiled_module.cache_dir
    seen = []

    def guarded():
        if complex_step_active():
            seen.append(True)
            raise AssertionError("the compiled-code cache was reached by a complex build")
        return real_cache_dir()
    monkeypatch.setattr(compiled_module, "cache_dir", guarded)
    for robot, key in (("prrrp-briot2013", "bodies.q2.beam.material.E"),
                       ("arm-yu2019", "links.0.E")):
        r = frequency_sensitivities(robot, [key], count=2)
        assert np.all(r["d_f_d_p"] > 0)
    assert not seen


def test_complex_program_equals_compiled_program():
    """The complex evaluation of a generated program, on real inputs, equals the
    compiled C program (round-off): prrrp's model and the 3-PRR's pivoted closure."""
    for robot in ("prrrp-briot2013", "3prr-rosyid2020"):
        model = build_model(load_description(robot), "nepvp").model
        rng = np.random.default_rng(7)
        for problem in ("model", "closure"):
            prog = model.program(problem)
            ins = [rng.uniform(-0.5, 0.5, len(s)) for s in prog.inputs.values()]
            ref = compile_program(prog)(*ins)
            got = ComplexProgram(prog)(*ins)
            for k, v in ref.items():
                assert np.abs(got[k].imag).max() == 0.0
                np.testing.assert_allclose(got[k].real, v, rtol=1e-12,
                                           atol=1e-12 * max(1.0, np.abs(v).max()))


def test_number():
    import sympy as sp
    assert number(0.0) == 0 and number(2.5) == sp.Float(2.5)
    z = number(complex(2.0, 3e-30))
    assert complex(z) == complex(2.0, 3e-30)
    assert number(complex(1.5, 0.0)) == sp.Float(1.5)


def test_refusals():
    # the joints' offsets move the loop closure of the held pose: not listed
    with pytest.raises(InputError, match="differentiated exactly"):
        frequency_sensitivities("prrrp-briot2013", ["joints.2.d"])
    # a lumped mass's position enters the mode values as a real abscissa
    with pytest.raises(InputError, match="differentiated exactly"):
        frequency_sensitivities("arm-yu2019", ["links.0.lumped_masses.0.mu"])


# ------------------------------------------------------------------ the sweep
def test_cli_sweep_sensitivities_nepvp_and_amm(capsys):
    """``elastodyn sweep ... --sensitivities`` on the generated-program formulations:
    the amm arm's reported sensitivities agree with the difference quotient of the
    sweep's own frequencies over a narrow range (relative step 1e-5, the mean of the
    two end points' derivatives: the trapezoid rule errs by O(h^2)); prrrp's equal the
    API's at that design."""
    E = 2.06e11
    doc = run_json(capsys, ["sweep", "arm-yu2019", "--set",
                            f"links.0.E={E!r}:{E * (1 + 1e-5)!r}:2", "--count", "3",
                            "--sensitivities", "--scheduler", "serial", "--json"])
    f = np.asarray(doc["frequencies_hz"])
    s = np.asarray(doc["sensitivity_hz"])[:, :, 0]
    assert doc["formulation"] == "amm" and doc["status"] == ["ok", "ok"]
    np.testing.assert_allclose((f[1] - f[0]) / (E * 1e-5), 0.5 * (s[0] + s[1]), rtol=1e-5)
    doc = run_json(capsys, ["sweep", "prrrp-briot2013", "--set",
                            "bodies.q5.beam.section.width=0.003:0.004:2", "--count", "3",
                            "--sensitivities", "--scheduler", "serial", "--json"])
    r = frequency_sensitivities(apply_sets(load_description("prrrp-briot2013"),
                                           ["bodies.q5.beam.section.width=0.003"]),
                                ["bodies.q5.beam.section.width"], count=3)
    np.testing.assert_allclose(np.asarray(doc["sensitivity_hz"])[0, :, 0],
                               r["d_f_d_p"][:, 0], rtol=1e-12)


def test_dropped_imaginary_part_in_the_program_is_refused(monkeypatch):
    """The run-time checks hold for the generated programs: a program whose constants
    lose their imaginary part (simulated: number() keeps the real part) leaves M real
    although it depends on the density; the real rebuild sees the change: refused."""
    from elastodyn.formulations.nepvp import symbolic as nepvp
    monkeypatch.setattr(nepvp, "number", lambda x: number(np.real(x)))
    with pytest.raises(InputError, match="dropped"):
        frequency_sensitivities("prrrp-briot2013", ["bodies.q2.beam.material.rho"],
                                count=2)


def test_complex_value_cast_to_float_in_the_generator_is_refused(monkeypatch):
    """A cast of the complex value to float on the way (simulated in the amm's
    parameters: sp.Float of a complex raises TypeError) is refused by name."""
    import sympy as sp

    from elastodyn.formulations.amm import generator as amm_arm
    monkeypatch.setattr(amm_arm, "_param", sp.Float)
    with pytest.raises(InputError, match="carries through the amm build"):
        frequency_sensitivities("arm-yu2019", ["links.0.mass"], count=2)
