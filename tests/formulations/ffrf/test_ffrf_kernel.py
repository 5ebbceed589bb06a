"""The compiled FFRF kernel (formulations/ffrf_kernel.c) against the NumPy code path of
the same equations (MultibodySystem.close then MultibodySystem.reduced): another
implementation in another language, compared on mechanisms with every joint row kind
(revolute, prismatic on a flexible body at mid-length, rigid), every body kind (rigid,
Rayleigh-Ritz, FEM with fixed-free and pinned-pinned frames, Simeon's sine shape) and
states away from the closure (so the kernel's Newton iterates), then along a run.
"""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.analysis.scenario import build_efforts
from elastodyn.description.presets import get_preset
from elastodyn.description.scenarios import scenario
from elastodyn.exceptions import ModelError
from elastodyn.fem.ffrf import BeamShape
from elastodyn.formulations.ffrf import multibody as fm
from elastodyn.formulations.ffrf.multibody import (Joint, Marker, MultibodySystem,
                                                   SingularConfiguration, flexible_body,
                                                   rigid_body)
from elastodyn.formulations.registry import build_model


def _slider_on_beam():
    """A flexible beam pinned to the ground (actuated) carrying a rigid slider on a
    prismatic joint at 0.3 m along it (actuated travel) and a tool welded to its tip
    (rigid joint), under gravity: the prismatic and rigid rows read a flexible body's
    point and slope, which rotate and bend."""
    beam = flexible_body("beam", BeamShape(0.6, 3, "fixed-free"), 0.8, EA=2e6, EI=40.0)
    slider = rigid_body("slider", 0.4, com=(0.01, 0.02), inertia_com=2e-4)
    tool = rigid_body("tool", 0.2, com=(0.03, 0.0), inertia_com=1e-4)
    pin = Joint("q1", "revolute", Marker(-1), Marker(0))
    slide = Joint("s2", "prismatic", Marker(0, (0.3, 0.0)), Marker(1), offset=0.0)
    weld = Joint("w", "rigid", Marker(0, (0.6, 0.0)), Marker(2))
    return MultibodySystem([beam, slider, tool], [pin, slide, weld],
                           gravity=(0.0, -9.81), actuated=["q1", "s2"])


def _model_system(name, **options):
    m = build_model(get_preset(name), "ffrf", **options)
    return m.system, m.tree.q_home


def _rigid_3prr():
    m = build_model(get_preset("3prr-rosyid2020"), "ffrf").rigid_counterpart()
    return m.system, m.tree.q_home


CASES = {
    "3prr fem 2": lambda: _model_system("3prr-rosyid2020", shape="fem", elements=2),
    "3prr rr": lambda: _model_system("3prr-rosyid2020", shape="rr"),
    "3prr pinned-pinned": lambda: _model_system("3prr-rosyid2020", shape="fem",
                                                elements=3, boundary="pinned-pinned"),
    "3prr rigid": lambda: _rigid_3prr(),
    "five-bar fem 2": lambda: _model_system("prrrp-briot2013", shape="fem", elements=2),
    "slider crank": lambda: _model_system("slider-crank-simeon", shape="sine"),
    "slider on beam": lambda: (_slider_on_beam(), None),
}


def _state(system, q_home, seed):
    """A closed configuration near home with random small elastic coordinates and
    rates, and a guess 1e-3 off it in the reference coordinates (the closure iterates)."""
    rng = np.random.default_rng(seed)
    if q_home is None:
        q_home = np.zeros(system.n)
        q_home[system.offsets[1]] = 0.3          # the slider at its joint, the tool at
        q_home[system.offsets[2]] = 0.6          # the beam's tip
    na, ne = system.n_actuated, system.n_elastic
    s = system.actuated_coordinates(q_home)[0] + 1e-3 * rng.standard_normal(na)
    qf = 1e-4 * rng.standard_normal(ne)
    v = rng.standard_normal(na + ne) * np.concatenate([np.full(na, 0.5), np.full(ne, 1e-2)])
    guess = system.close(q_home, s, qf)
    guess[system.ref_index] += 1e-3 * rng.standard_normal(system.ref_index.size)
    return guess, s, qf, v


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernel_matches_numpy(case):
    system, q_home = CASES[case]()
    for seed in range(3):
        guess, s, qf, v = _state(system, q_home, seed)
        ref = [np.array(a) for a in system.closed_reduced(guess, s, qf, v, compiled=False)]
        res_ref = system.closure_residual
        out = system.closed_reduced(guess, s, qf, v, compiled=True)
        # the same formulas summed in another order: round-off (1e-16) times the
        # condition of the dependent Jacobian (below 1e3 here)
        for name, a, b in zip(("q", "M_r", "c_r", "q_dot"), ref, out):
            scale = max(np.abs(a).max(), 1e-300)
            assert np.abs(a - b).max() <= 1e-12 * scale, (case, seed, name)
        assert system.closure_residual < 1e-12 and res_ref < 1e-12
        # the determinant measures: the kernel's (cached for this q) against LAPACK's
        sign_c, det_c, rc_c = system.dependent_determinant(out[0])
        system._closed_det = None
        sign_n, det_n, rc_n = system.dependent_determinant(out[0])
        assert sign_c == sign_n
        assert det_c == pytest.approx(det_n, rel=1e-10)
        # exact reciprocal condition (kernel) against gecon's estimate, which is a
        # lower bound of the norm of the inverse, usually within a factor 3 of it
        assert rc_n / 3.0 <= rc_c <= rc_n * (1 + 1e-12)


def test_no_assembly_raises_on_both_paths():
    """Sliders 10 m apart: the legs cannot reach the platform, the closure fails."""
    system, q_home = CASES["3prr fem 2"]()
    s = system.actuated_coordinates(q_home)[0] + np.array([-10.0, 0.0, 10.0])
    args = (q_home, s, np.zeros(system.n_elastic),
            np.zeros(system.n_actuated + system.n_elastic))
    for compiled in (False, True):
        with pytest.raises(SingularConfiguration):
            system.closed_reduced(*args, compiled=compiled)


def test_runs_agree_and_fallback_without_compiler(monkeypatch):
    """A force-driven run of the 3-PRR (FEM, 2 elements, the sine scenario, 20 ms) with
    the kernel and with the NumPy path (the kernel withheld, as without a C compiler):
    the same Newton iterates up to round-off, so the runs agree far below Newton's
    tolerance (1e-11 m)."""
    from elastodyn.formulations.ffrf.solve import integrate
    eff = build_efforts(scenario("3prr-rosyid2020", "sine")["efforts"], 3)
    runs = []
    for compiled in (True, False):
        system, q0 = CASES["3prr fem 2"]()
        if not compiled:
            monkeypatch.setitem(fm._KERNEL_LIB, "lib", None)
        runs.append(integrate(system, q0, np.zeros_like(q0), np.linspace(0, 0.02, 5),
                              efforts=lambda t: eff(t), step=1e-4))
    assert system._kernel() is None
    with pytest.raises(ModelError):
        system.closed_reduced(q0, system.actuated_coordinates(q0)[0],
                              np.zeros(system.n_elastic),
                              np.zeros(system.n_actuated + system.n_elastic), compiled=True)
    a, b = runs
    assert np.abs(a.q - b.q).max() < 1e-11
    assert np.abs(a.qd - b.qd).max() < 1e-7       # rates: tolerance / step
    assert max(a.residual.max(), b.residual.max()) < 1e-12


@pytest.mark.parametrize("tol", [0.0, -1e-11, float("nan")])
def test_newton_tolerance_is_checked(tol):
    from elastodyn.exceptions import InputError
    from elastodyn.formulations.ffrf.solve import integrate
    system, q0 = CASES["3prr rr"]()
    with pytest.raises(InputError, match="newton_tol"):
        integrate(system, q0, np.zeros_like(q0), [0.0, 1e-3],
                  efforts=lambda t: np.zeros(3), newton_tol=tol)
