"""Issue 18 items 1 and 2: no silently wrong result, and errors that name the right
option. One test per observed case (and per case the fuzz test, tests/cli/test_fuzz.py,
found); each states what the input did before."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cli_helpers import run
from elastodyn.description.materials import Material, Section
from elastodyn.exceptions import InputError, ModelError
from elastodyn.fem.assembly import Link
from elastodyn.fem.elements import BeamElement
from elastodyn.fem.modal import lowest_eigenvalues, modal_analysis


def _error(capsys, argv):
    """The one error line of a refused run (exit code 2)."""
    code, _, err = run(capsys, argv)
    assert code == 2, (code, err)
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def _beam(E=210e9, G=80e9, rho=7800.0, length=0.6):
    return Link(BeamElement(spatial=True, order="cubic"), length, 8,
                Section.rectangle(5e-3, 5e-3), Material(E=E, G=G, rho=rho),
                ends="clamped-free")


# ------------------------------------------------------------------ item 1
def test_beam_modes_huge_modulus_refused_naming_E(capsys):
    """Before: exit 0, every frequency 0.0 Hz labelled torsion."""
    line = _error(capsys, ["beam-modes", "--E", "1e300", "--json"])
    assert line.startswith("elastodyn: error: invalid --E: got 1e+300")
    assert "modulus in [1000, 1e+18] Pa" in line


def test_modal_analysis_refuses_an_unresolvable_problem():
    """The library below the command line: E = 1e200 Pa with G = 80 GPa puts every
    torsion eigenvalue below round-off (before: reported as 0 rad/s, rigid modes)."""
    link = _beam(E=1e200)
    with pytest.raises(ModelError, match="cannot be resolved in double precision"):
        modal_analysis(link.mass(), link.stiffness(), count=8, free_dofs=link.free_dofs())


def test_modal_analysis_scales_with_the_modulus():
    """An independent check that a large but consistent material is computed right:
    omega scales as sqrt(E) when E and G scale together (the eigenproblem
    K(E) = (E/E0) K(E0))."""
    f = 1e6
    a, b = _beam(), _beam(E=210e9 * f, G=80e9 * f)
    ra = modal_analysis(a.mass(), a.stiffness(), count=8, free_dofs=a.free_dofs())
    rb = modal_analysis(b.mass(), b.stiffness(), count=8, free_dofs=b.free_dofs())
    # round-off: eps * lambda_max / lambda_1 ~ 1e-9 for this mesh (modal_analysis notes)
    np.testing.assert_allclose(rb.omega_rad_s, ra.omega_rad_s * math.sqrt(f), rtol=1e-7)


def test_modal_analysis_refuses_mismatched_shapes():
    """Before: mismatched M and K were accepted (the first n rows of K used)."""
    with pytest.raises(InputError) as exc:
        modal_analysis(np.eye(3), np.eye(4), count=1)
    assert exc.value.name == "K"


def test_modal_analysis_refuses_a_non_square_or_empty_matrix():
    with pytest.raises(InputError) as exc:
        modal_analysis(np.ones((2, 3)), np.ones((2, 3)), count=1)
    assert exc.value.name == "M"


def test_modal_analysis_refuses_a_non_symmetric_stiffness():
    """Before: a non-symmetric K was accepted (eigh read one triangle silently)."""
    K = np.array([[2.0, -1.0], [0.0, 2.0]])
    with pytest.raises(InputError) as exc:
        modal_analysis(np.eye(2), K, count=1)
    assert exc.value.name == "K"
    assert "symmetric" in str(exc.value)


def test_modal_analysis_accepts_round_off_asymmetry():
    """Asymmetry at round-off level (1e-14 relative, below SYMMETRY_RTOL = 1e-8) is a
    symmetric matrix: accepted, same result as its symmetric part."""
    K = np.array([[2.0, -1.0], [-1.0 + 1e-14, 2.0]])
    res = modal_analysis(np.eye(2), K, count=2)
    np.testing.assert_allclose(res.omega_rad_s, [1.0, math.sqrt(3.0)], rtol=1e-12)


def test_modal_analysis_refuses_non_finite_and_bad_free_dofs():
    M = np.eye(2)
    M[0, 0] = np.nan
    with pytest.raises(InputError) as exc:
        modal_analysis(M, np.eye(2), count=1)
    assert exc.value.name == "M"
    with pytest.raises(InputError) as exc:
        modal_analysis(np.eye(2), np.eye(2), count=1, free_dofs=[0, 5])
    assert exc.value.name == "free_dofs"


def test_lowest_eigenvalues_keep_their_sign():
    """The signed eigenvalues of a pencil (the stability checks and default steps that
    modal_analysis, refusing an indefinite K, cannot serve): M = diag(2, 1),
    K = [[2, 0], [0, -3]] has lambda = 1 and -3 (LAPACK's reduction: to an ulp); on a
    definite pencil they are modal_analysis's omega^2 (to round-off, 1e-12 relative)."""
    M = np.diag([2.0, 1.0])
    np.testing.assert_allclose(lowest_eigenvalues(M, np.diag([2.0, -3.0]), count=2),
                               [-3.0, 1.0], rtol=1e-15)
    K = np.array([[4.0, -1.0], [-1.0, 3.0]])
    lam = lowest_eigenvalues(M, K, count=2)
    np.testing.assert_allclose(lam, modal_analysis(M, K, count=2).omega_rad_s ** 2,
                               rtol=1e-12)
    with pytest.raises(ModelError, match="positive definite"):
        lowest_eigenvalues(np.diag([1.0, -1.0]), K)
    with pytest.raises(InputError, match="count"):
        lowest_eigenvalues(M, K, count=3)


def test_ked_newmark_step_that_cannot_resolve_the_modes_is_refused(capsys):
    """Before: --step 0.05 ran (22x the attitude variation of the 1 ms run). The
    largest step is an eighth of the period of the platform's sixth mode (10.09 Hz)."""
    line = _error(capsys, ["simulate", "delta-kuo2016", "--step", "0.05", "--json"])
    assert line.startswith("elastodyn: error: invalid --step: got 0.05")
    assert "at most 0.0124 s for the Newmark integrator" in line


def test_ked_step_check_applies_to_torques(capsys):
    """The same Newmark integrator behind torques (a flexible model's drive torques)."""
    line = _error(capsys, ["torques", "delta-kuo2016", "--formulation", "ked", "--step",
                           "0.05", "--json"])
    assert "invalid --step" in line and "Newmark" in line


# ------------------------------------------------------------------ item 2
@pytest.mark.parametrize("value", ["1e300", "1e-300"])
def test_beam_length_out_of_range_names_length(capsys, value):
    """Before: 1e300 leaked "(34, 'Numerical result out of range')" (exit 1), 1e-300 a
    scipy message."""
    line = _error(capsys, ["beam-modes", "--length", value, "--json"])
    assert line.startswith(f"elastodyn: error: invalid --length: got {float(value)!r}")
    assert "[1e-06, 1000] m" in line


@pytest.mark.parametrize("key,value", [("links.lower.length", "1e300"),
                                       ("links.lower.length", "1e-300"),
                                       ("links.lower.section.width", "1e-300"),
                                       ("links.lower.material.E", "1e300")])
def test_description_out_of_range_names_the_key(capsys, key, value):
    """The same values through a description (found by the fuzz test: an OverflowError
    traceback, an 'invalid iz' naming an internal, a ZeroDivisionError)."""
    line = _error(capsys, ["modes", "delta-kuo2016", "--json", "--set", f"{key}={value}"])
    assert f"invalid {key}: got '{value}'" in line  # YAML 1.1 reads 1e300 as text


@pytest.mark.parametrize("key,value", [("links.0.I", "1e300"), ("links.0.mass", "1e300"),
                                       ("links.0.length", "1e-300")])
def test_arm_description_out_of_range_names_the_key(capsys, key, value):
    """Fuzz: links.0.I=1e300 named the internal 'K'; links.0.mass=1e300 failed as an
    unresolvable eigenproblem (exit 1); links.0.length=1e-300 a ZeroDivisionError."""
    line = _error(capsys, ["modes", "arm-yu2019", "--json", "--set", f"{key}={value}"])
    assert f"invalid {key}: got '{value}'" in line  # YAML 1.1 reads 1e300 as text


def test_tiny_duration_names_duration(capsys):
    """Before: "cannot convert float NaN to integer"; then --step (which was not given)."""
    line = _error(capsys, ["simulate", "prrrp-briot2013", "--duration", "1e-300", "--json"])
    assert line.startswith("elastodyn: error: invalid --duration: got 1e-300")


def test_huge_q1_names_q1(capsys):
    """Before: the error blamed --q4 (then --actuated)."""
    line = _error(capsys, ["modes", "prrrp-briot2013", "--q1", "1e300", "--json"])
    assert line.startswith("elastodyn: error: invalid --q1: got 1e+300")


def test_tiny_step_names_step(capsys):
    """Before: the error blamed --period."""
    line = _error(capsys, ["simulate", "delta-asadi2020", "--step", "1e-300", "--json"])
    assert line.startswith("elastodyn: error: invalid --step: got 1e-300")


@pytest.mark.parametrize("argv,flag", [
    (["--centre", "0", "0", "5", "--radius", "0.01"], "--centre"),
    (["--centre", "0", "0", "0.5", "--radius", "0.6"], "--radius"),
    (["--centre", "0", "0", "5"], "--centre"),
])
def test_unreachable_circle_names_the_option(capsys, argv, flag):
    """Before: "invalid --centre/--radius" whichever made it unreachable."""
    line = _error(capsys, ["simulate", "delta-kuo2016", "--json"] + argv)
    assert line.startswith(f"elastodyn: error: invalid {flag}: got ")


def test_unreachable_arm_circle_names_centre(capsys):
    line = _error(capsys, ["torques", "arm-yu2019", "--json", "--centre", "5", "5",
                           "--radius", "0.01"])
    assert line.startswith("elastodyn: error: invalid --centre: got [5.0, 5.0]")


def test_negative_infinity_is_a_value_named_by_its_option(capsys):
    """Fuzz: '-inf' was read as an unknown option ("unrecognized arguments: -inf")."""
    line = _error(capsys, ["modes", "arm-yu2019", "--actuated", "0", "-inf"])
    assert "--actuated" in line and "finite number" in line


def test_an_internal_value_error_is_a_bug_not_bad_input(monkeypatch):
    """A ValueError that is not an InputError is not turned into exit code 2: it leaves
    main with its traceback (the bug report), as any other exception."""
    from elastodyn import cli
    from elastodyn.cli import beam_modes

    def broken(a):
        raise ValueError("an internal error")
    monkeypatch.setattr(beam_modes, "run", broken)
    with pytest.raises(ValueError, match="an internal error"):
        cli.main(["beam-modes"])


def test_modal_batch_reports_an_unresolvable_problem():
    """The batched eigenproblems of a map: the same resolvability check, reported as
    that pose's failure (the others solved)."""
    from elastodyn.fem.modal import modal_batch
    good, bad = _beam(), _beam(E=1e200)
    free = good.free_dofs()
    M = np.array([l.mass().toarray()[np.ix_(free, free)] for l in (good, bad)])
    K = np.array([l.stiffness().toarray()[np.ix_(free, free)] for l in (good, bad)])
    omega, _, fails = modal_batch(M, K, count=4)
    assert fails[0] is None and "cannot be resolved" in fails[1]
    ref = modal_analysis(good.mass(), good.stiffness(), count=4, free_dofs=free)
    np.testing.assert_allclose(omega[0], ref.omega_rad_s, rtol=1e-9)


@pytest.mark.parametrize("argv,flag", [(["--ends", ""], "--ends"), (["--order", "x"], "--order"),
                                       (["--count", "1000"], "--count")])
def test_beam_modes_library_names_become_options(capsys, argv, flag):
    """Fuzz: --ends '' was refused as 'invalid ends' (the library's name, no option)."""
    line = _error(capsys, ["beam-modes", "--json"] + argv)
    assert line.startswith(f"elastodyn: error: invalid {flag}: got ")


def test_circle_period_out_of_range_names_period(capsys):
    """Fuzz: --period 1e-300 raised OverflowError (a traceback) in the path's
    accelerations."""
    line = _error(capsys, ["torques", "arm-yu2019", "--json", "--duration", "0.05",
                           "--period", "1e-300"])
    assert line.startswith("elastodyn: error: invalid --period: got 1e-300")


@pytest.mark.parametrize("argv,flag,words", [
    (["torques", "3prr-rosyid2020", "--scenario", "pulse"], "--scenario",
     "drives the actuators"),
    (["plan", "slider-crank-simeon"], "--trajectory", "no paper scenario with a motion"),
    (["simulate", "3prr-rosyid2020", "--scenario", "pulse", "--trajectory", "circle"],
     "--trajectory", "no motion with --scenario pulse"),
])
def test_a_force_driven_scenario_is_named_where_a_motion_is_needed(capsys, argv, flag,
                                                                    words):
    """A preset's force-driven scenario (efforts, a drive) has no motion: a verb that
    needs one says so by the option the user gave (it said "this robot has no paper
    scenario" and "the None of --scenario pulse")."""
    rc, _, err = run(capsys, argv)
    assert rc == 2 and len(err) == 1 and flag in err[0] and words in err[0], err


@pytest.mark.parametrize("extra,flag", [
    (["--efforts", "sine", "--amplitude", "1", "1", "--rate", "10"], "--amplitude"),
    (["--efforts", "pulse", "--peak", "1", "1"], "--peak"),
    (["--efforts", "sine", "--amplitude", "1", "1", "1", "--rate", "0"], "--rate"),
    (["--efforts", "pulse", "--peak", "1", "1", "1", "--end-time", "0.05"], "--end-time"),
    (["--efforts", "sine", "--amplitude", "1", "1", "1", "--rate", "10",
      "--integrator-step", "1e-9", "--duration", "0.05"], "--integrator-step"),
])
def test_user_efforts_are_refused_by_the_option_typed(capsys, extra, flag):
    """``simulate --efforts``: a wrong count names --amplitude or --peak (it said
    "invalid efforts: got {'law': ...}"), a bad rate --rate (not angular_rate), a pulse
    ending before the default peak time --end-time (not the default peak_time the user
    never gave); an integrator step that would take more than 1e6 steps is refused (1e-9
    s over 0.05 s never ended)."""
    rc, _, err = run(capsys, ["simulate", "3prr-rosyid2020"] + extra)
    assert rc == 2 and len(err) == 1 and f"invalid {flag}" in err[0], err


def test_efforts_that_stop_the_run_at_the_start_are_a_model_error(capsys, tmp_path):
    """Efforts of 1e20 N: the 3-PRR is singular at once; exit 1 and one line, --out gets
    nothing (it was exit 0 with an empty run and a full output set)."""
    out = tmp_path / "o"
    rc, _, err = run(capsys, ["simulate", "3prr-rosyid2020", "--efforts", "sine",
                              "--amplitude", "1e20", "1e20", "-1e20", "--rate", "10",
                              "--out", str(out)])
    assert rc == 1 and len(err) == 1 and "stopped at the start" in err[0], err
    assert not out.exists()


def test_efforts_the_run_cannot_follow_are_warned(capsys):
    """A sine faster than the integrator step (aliased) and a pulse after the window
    are said, with the step that would resolve them."""
    import json
    rc, out, err = run(capsys, ["simulate", "3prr-rosyid2020", "--duration", "0.005",
                                "--efforts", "sine", "--amplitude", "1", "1", "1",
                                "--rate", "1e6", "--json"])
    assert rc == 0, err
    assert any("not resolved" in w for w in json.loads(out)["warnings"])
    rc, out, err = run(capsys, ["simulate", "3prr-rosyid2020", "--duration", "0.005",
                                "--efforts", "pulse", "--peak", "1", "1", "1",
                                "--peak-time", "1", "--end-time", "2", "--json"])
    assert rc == 0, err
    assert any("after the 0.005 s window" in w for w in json.loads(out)["warnings"])


def test_a_scenario_model_option_given_takes_none_of_the_scenarios(capsys):
    """Simeon's drive scenario is ffrf with 2 sine modes: --shape fem takes the
    formulation but none of the scenario's options (it failed on the scenario's
    --modes 2, which the user never gave), nor its initial state and step."""
    import json
    rc, out, err = run(capsys, ["simulate", "slider-crank-simeon", "--formulation", "ffrf",
                                "--shape", "fem", "--duration", "0.01", "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"]["shape"] == "fem" and doc["summary"]["integrator_step_s"] != 2e-5
