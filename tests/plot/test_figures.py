"""Figures a designer reads (issue 18, item 5): what can be checked without looking.

One axes per mode on the frequency map; convergence as relative error on log-log axes
with the fitted order (checked against a beam's analytic frequencies, independent of
the figure's own extrapolation); legends outside the data and y labels clear of the tick
labels on every figure; coordinate names spelled out (no ``e2_v1`` on a figure); the
validity verdict on the figures of a run outside it; Z down on Delta figures; vector
output (svg, pdf) on request. Results are built from small synthetic quantities (Agg,
no pyplot), plus a few short command-line runs.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cli_helpers import run
from elastodyn.analysis.modes import ConvergenceResult, MapResult, ModesResult
from elastodyn.analysis.simulate import SimulationResult
from elastodyn.plot.convergence import (convergence_errors, fitted_order,
                                        richardson_reference)
from elastodyn.plot.labels import coordinate_unit, readable_coordinate

VALIDITY = ("elastic displacements beyond the small-deformation range of the linear KED "
            "model (largest displacement 12% of the link length, limit 5%): the numbers "
            "describe the linearization, not the robot")
NOT_VALIDITY = ("integrator step 2e-05 s: elastic modes above about 5000 Hz are not "
                "resolved (numerically damped, rho_inf 0.8)")
RAW_NAME = re.compile(r"\be\d+_")


# ------------------------------------------------------------------ helpers
def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _texts(fig) -> list[str]:
    from matplotlib.text import Text
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _overlap(a, b, tol: float = 1.0) -> bool:
    """Whether display boxes a and b overlap by more than ``tol`` pixels."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > tol and
            min(a.y1, b.y1) - max(a.y0, b.y0) > tol)


def _check_layout(fig):
    """Legends cover no axes' data area; y labels run into no tick label."""
    r = _drawn(fig)
    data = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"
            and getattr(ax, "name", "") != "3d"]
    legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend()]
    legends += [(None, leg) for leg in fig.legends]
    for _, leg in legends:
        box = leg.get_window_extent(r)
        for ax in data:
            assert not _overlap(box, ax.get_window_extent(r)), \
                f"legend {[t.get_text() for t in leg.get_texts()][:3]} over the data"
    for ax in data:
        lab = ax.yaxis.label
        if not lab.get_text():
            continue
        lbox = lab.get_window_extent(r)
        for tick in ax.get_yticklabels():
            if tick.get_text() and tick.get_visible():
                assert not _overlap(lbox, tick.get_window_extent(r)), \
                    f"y label {lab.get_text()!r} runs into tick {tick.get_text()!r}"


def _series(n=200, T=1.0):
    t = np.linspace(0.0, T, n)
    return t, np.sin(2 * np.pi * 3 * t)[:, None]


KUO_GRAVITY = {"gravity_m_s2": [0.0, 0.0, 9.81]}   # a Delta's world: Z down, along gravity


def _simulation(warnings=(), robot="delta-kuo2016", formulation="nepvp", inputs=None):
    t, s = _series()
    names = ["e2_u1", "e2_v1", "e2_rz1", "e5_u1", "e5_v1", "e5_rz1"]
    e = s * np.array([1e-6, 2e-4, 3e-3, 2e-6, 1e-4, 2e-3])
    q = {"time_s": t, "torque_nm": np.hstack([s, 2 * s, 3 * s]),
         "rigid_torque_nm": np.hstack([s, 2 * s, 3 * s]) * 0.9,
         "ee_position_m": np.hstack([s, s, s]) * 1e-3, "rigid_ee_position_m": 0 * s.repeat(3, 1),
         "elastic": e, "elastic_names": names}
    inputs = KUO_GRAVITY if inputs is None else inputs
    return SimulationResult(command="simulate", robot=robot, formulation=formulation, model={},
                            inputs=inputs, quantities=q, summary={}, warnings=tuple(warnings),
                            index="time_s", stem="simulation", title=f"{robot}: a run")


def _ked(warnings=()):
    t, s = _series()
    three = np.hstack([s, 2 * s, 3 * s])
    # a platform robot's run (schema 2): Kuo's layout drawn from its content
    q = {"time_s": t, "torque_nm": three, "rigid_torque_nm": three,
         "ee_position_m": three + 1e-3 * three, "rigid_ee_position_m": three,
         "ee_attitude_deg": three,
         "midspan": np.tile(1e-3 * s, (1, 24)), "reference_velocity_m_s": three,
         "reference_acceleration_m_s2": three}
    return SimulationResult(command="simulate", robot="delta-kuo2016", formulation="ked",
                            model={}, inputs=KUO_GRAVITY, quantities=q, summary={},
                            warnings=tuple(warnings), index="time_s", stem="simulation",
                            title="delta-kuo2016: KED simulation")


def _tracking():
    t, s = _series()
    three = np.hstack([s, 2 * s, 3 * s])
    q = {"time_s": t, "position_error_m": 1e-3 * three, "joint_error_rad": 1e-3 * three,
         "torque_nm": three}
    return SimulationResult(command="simulate", robot="delta-asadi2020", formulation="explicit",
                            model={}, inputs={}, quantities=q, summary={}, warnings=(),
                            index="time_s", stem="simulation", title="tracking")


def _forced():
    t, s = _series()
    names = ["a1.u2", "a1.v2", "a1.r2", "b2.v3", "a.w1", "a.u_mid"]
    z = np.zeros_like(s)
    q = {"time_s": t, "actuated": np.hstack([s, s, s]), "rigid_actuated": np.hstack([s, s, s]),
         "ee_position_m": np.hstack([s, s, z]), "rigid_ee_position_m": np.hstack([s, s, z]),
         "ee_angle_rad": s[:, 0] + 1e-6, "rigid_ee_angle_rad": s[:, 0],
         "elastic": s * np.array([1e-6, 1e-4, 1e-3, 2e-4, 3e-4, 1e-7]), "elastic_names": names}
    return SimulationResult(command="simulate", robot="3prr-rosyid2020", formulation="ffrf",
                            model={}, inputs={}, quantities=q, summary={}, warnings=(),
                            index="time_s", stem="simulation", title="3prr: forced")


def _map(count=4, warnings=()):
    ang = np.arange(0.0, 360.0, 2.0)
    f = np.array([3.0 + m * 2 + (0.01 + 0.1 * m) * np.cos(np.radians(3 * ang + 60 * m))
                  for m in range(count)]).T
    q = {"angle_deg": ang, "frequencies_hz": f, "omega_rad_s": 2 * np.pi * f}
    inputs = {"path": "circle", "centre_m": [0.0, 0.0, 0.5], "radius_m": 0.1, **KUO_GRAVITY}
    return MapResult(command="map", robot="delta-kuo2016", formulation="ked", model={},
                     inputs=inputs, quantities=q, summary={}, warnings=tuple(warnings),
                     index="angle_deg", stem="map", title="delta-kuo2016: map")


def _modes():
    f = np.array([3.26, 3.53, 3.87, 8.73])
    q = {"mode": np.arange(1, 5), "frequencies_hz": f, "omega_rad_s": 2 * np.pi * f,
         "dominant_coordinate": ["e2_v1", "leg1.joint_B.release1", "platform.dZ",
                                 "link1.f2"]}
    return ModesResult(command="modes", robot="delta-kuo2016", formulation="ked", model={},
                       inputs={}, quantities=q, summary={}, warnings=(), index="mode",
                       stem="modes", title="modes")


def _convergence(f):
    n = np.arange(1, len(f) + 1)
    return ConvergenceResult(command="convergence", robot="beam", formulation="fe", model={},
                             inputs={},
                             quantities={"elements": n, "frequencies_hz": np.asarray(f)},
                             summary={}, warnings=(), index="elements", stem="convergence",
                             title="convergence")


def _arm():
    t, s = _series()
    two = np.hstack([s, 2 * s])
    f = np.linspace(0.0, 40.0, 200)
    q = {"time_s": t, "theta_rad": two, "theta_ref_rad": two, "torque_nm": two,
         "tip_acceleration_m_s2": np.hstack([s, s, 2 * s, 2 * s]),
         "spectrum_frequency_hz": f, "spectrum_amplitude": np.exp(-(f - 2.2) ** 2),
         "omega_spectrum_rad_s": [14.1, 45.9]}
    return SimulationResult(command="simulate", robot="arm-yu2019", formulation="amm", model={},
                            inputs={}, quantities=q, summary={}, warnings=(), index="time_s",
                            stem="simulation", title="arm: free")


ALL = {"arm": _arm, "simulation": _simulation, "ked": _ked, "tracking": _tracking, "forced": _forced,
       "map": _map, "modes": _modes}


# ------------------------------------------------------------------ 1. the frequency map
def test_map_has_one_axes_per_mode_each_with_its_own_range():
    for count in (1, 4, 8):
        fig = _map(count).figures()["map"]
        axes = fig.axes
        assert len(axes) == count
        spans = [ax.get_ylim() for ax in axes]
        if count > 1:   # each its own range: the curves are 2 Hz apart, 0.02-0.7 Hz tall
            assert all(hi - lo < 1.9 for lo, hi in spans)
            assert len({round(lo, 3) for lo, _ in spans}) == count
        ticks = axes[-1].get_xticks()
        assert 120.0 in ticks and 240.0 in ticks    # the legs' period shows on the grid
    assert any("Z down" in t for t in _texts(_map().figures()["map"]))


# ------------------------------------------------------------------ 2. convergence
def test_convergence_order_of_a_power_law():
    n = np.arange(1, 9, dtype=float)
    for p in (2.0, 4.0):
        f = 10.0 * (1.0 + 0.3 * n ** -p)
        ref, order = richardson_reference(n, f)
        assert ref == pytest.approx(10.0, rel=1e-10) and order == pytest.approx(p, rel=1e-6)
        err, _, extrapolated = convergence_errors(n, f)
        assert extrapolated
        assert fitted_order(n, err)[0] == pytest.approx(p, rel=1e-6)
    # not monotone (a mode that changes its character): the finest mesh is the reference
    f = 10.0 + np.array([0.5, -0.3, 0.2, -0.1, 0.05, -0.02, 0.01, 0.001])
    assert richardson_reference(n, f) == (f[-1], None)


def test_convergence_against_the_analytic_cantilever():
    """A clamped-free beam of cubic elements: the fitted order is 4 (Strang & Fix) and the
    figure's extrapolated reference equals the analytic frequency (beta L = 1.8751, 4.6941;
    Euler-Bernoulli), which the figure never sees."""
    from elastodyn.analysis.modal import beam_modes
    from elastodyn.description.materials import Material, Section
    from elastodyn.fem.assembly import Link
    from elastodyn.fem.elements import BeamElement
    sec, mat, L = Section.rectangle(5e-3, 5e-3), Material(E=210e9, G=80e9, rho=7800.0), 0.6
    n = np.arange(1, 9)
    f = np.array([beam_modes(Link(BeamElement(spatial=False), L, int(k), sec, mat,
                                  ends="clamped-free"), count=2).frequencies_hz for k in n])
    EI, mu = mat.E * sec.iz, mat.rho * sec.area
    exact = [(bl / L) ** 2 * math.sqrt(EI / mu) / (2 * math.pi) for bl in
             (1.8751040687, 4.6940911330)]
    for m in range(2):
        err, ref, extrapolated = convergence_errors(n, f[:, m])
        # the reference is better than the finest mesh by orders of magnitude
        assert extrapolated and abs(ref / exact[m] - 1) < 0.05 * abs(f[-1, m] / exact[m] - 1)
        order, _ = fitted_order(n, err)
        assert 3.6 < order < 4.4
    fig = _convergence(f).figures()["convergence"]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 2 and all(re.search(r"order [34]\.\d", lab) for lab in labels)
    assert "relative error" in ax.get_ylabel()
    _check_layout(fig)


# ------------------------------------------------------------------ 3. layout, 4. names
@pytest.mark.parametrize("name", sorted(ALL))
def test_legends_outside_labels_clear_and_names_readable(name):
    figs = ALL[name]().figures()
    assert figs
    for fig in figs.values():
        _check_layout(fig)
        raw = [t for t in _texts(fig) if RAW_NAME.search(t)]
        assert not raw, raw


def test_convergence_and_wide_maps_lay_out():
    _check_layout(_convergence(np.outer(1 + np.arange(1, 9) ** -4.0, [3, 5, 9])
                               ).figures()["convergence"])
    _check_layout(_map(8).figures()["map"])


def test_readable_coordinate_names():
    cases = {"e2_v1": "body 2, node 1: bending v", "e5_rz1": "body 5, node 1: slope rz",
             "e2_f1_1": "body 2, mode 1", "platform.dZ": "platform Z displacement (down)",
             "leg1.upper.node1.v": "leg 1 upper link, node 1: bending v",
             "leg3.joint_D.release2": "leg 3 platform joint D, release 2",
             "link1.f2": "link 1, mode 2", "a1.r2": "body a1, node 2: slope r",
             "a.w1": "body a, sine mode 1", "time": "time"}
    for raw, text in cases.items():
        assert readable_coordinate(raw) == text
    assert [coordinate_unit(x) for x in ("e2_rz1", "e2_v1", "a1.r2", "platform.rX",
                                         "leg1.lower.node1.drz")] == \
        ["rad", "m", "rad", "rad", "rad/m"]


# ------------------------------------------------------------------ 5. validity
def test_validity_note_on_every_figure_of_a_result_outside_it():
    for make in (_simulation, _ked, _map):
        bad = make(warnings=(VALIDITY, NOT_VALIDITY)).figures()
        for fig in bad.values():
            notes = [t for t in _texts(fig) if t.startswith("Outside the model's validity")]
            assert len(notes) == 1 and "small-deformation" in notes[0]
            assert len(notes[0].splitlines()) <= 2
        for fig in make(warnings=(NOT_VALIDITY,)).figures().values():
            assert not any("validity" in t for t in _texts(fig))
    assert any("validity" in t for t in _texts(_map(warnings=(VALIDITY,)).plot()))


# ------------------------------------------------------------------ 6. Z down
def test_delta_figures_say_z_points_down():
    for result in (_ked(), _tracking(), _simulation()):
        for name, fig in result.figures().items():
            if name in ("midspan", "torques"):      # link frames; no position
                continue
            assert any("down" in t for t in _texts(fig)), name
    # the world's orientation comes from the description's gravity, not the robot's
    # name: a planar arm in its vertical x-y plane (gravity -y) claims nothing about Z
    plain = _simulation(robot="delta-named-arm", formulation="amm",
                        inputs={"gravity_m_s2": [0.0, -9.81, 0.0]}).figures()
    assert not any("down" in t for f in plain.values() for t in _texts(f))


# ------------------------------------------------------------------ 7. vector output
def test_svg_and_pdf_output_sets(tmp_path, capsys):
    code, _, err = run(capsys, ["beam-modes", "--count", "2", "--out",
                                str(tmp_path / "svg"), "--format", "svg"])
    assert code == 0, err
    files = sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert "mode_shapes.svg" in files and not any(f.endswith(".png") for f in files)
    assert ET.parse(tmp_path / "svg" / "mode_shapes.svg").getroot().tag.endswith("svg")
    code, _, err = run(capsys, ["beam-modes", "--count", "2", "--out",
                                str(tmp_path / "both"), "--format", "pdf,png"])
    assert code == 0, err
    assert (tmp_path / "both" / "mode_shapes.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / "both" / "mode_shapes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the same run writes the same vector bytes (no creation date)
    _map().save(tmp_path / "m1", formats=("svg",))
    _map().save(tmp_path / "m2", formats=("svg",))
    assert (tmp_path / "m1" / "map.svg").read_bytes() == (tmp_path / "m2" / "map.svg").read_bytes()


@pytest.mark.parametrize("fmt", ["jpg", "svg,eps", ","])
def test_bad_figure_format_is_refused(tmp_path, capsys, fmt):
    code, out, err = run(capsys, ["beam-modes", "--out", str(tmp_path / "x"), "--format", fmt])
    assert code == 2 and len(err) == 1 and "--format" in err[0] and not out
    assert not (tmp_path / "x").exists()


def test_bad_format_in_the_library_names_formats(tmp_path):
    from elastodyn.exceptions import InputError
    with pytest.raises(InputError, match="formats"):
        _map().save(tmp_path / "m", formats=("gif",))
    assert not (tmp_path / "m").exists()


def test_validity_note_printed_once_and_on_any_subclass():
    class Child(MapResult):
        def figures(self):
            figs = super().figures()
            return {**figs, "extra": figs["map"]}
    r = Child(command="map", robot="delta-kuo2016", formulation="ked", model={},
              inputs=_map().inputs, quantities=_map().quantities, warnings=(VALIDITY,),
              index="angle_deg", stem="map", title="child")
    figs = r.figures()
    assert set(figs) == {"map", "extra"}
    notes = [t for t in _texts(figs["map"]) if "validity" in t]
    assert len(notes) == 1


def test_validity_note_above_an_existing_suptitle():
    from elastodyn.analysis.results import Result
    from elastodyn.plot.figure import new_figure

    class Titled(Result):
        def figures(self):
            fig, axes = new_figure(1)
            axes[0].plot([0, 1], [0, 1])
            fig.suptitle("the run")
            return {"one": fig}
    fig = Titled(command="x", robot="r", formulation="f", model={}, inputs={}, quantities={},
                 warnings=(VALIDITY,)).plot()
    texts = _texts(fig)
    assert "the run" in texts and any(t.startswith("Outside the model's validity")
                                      for t in texts)


def test_description_keys_carry_their_unit():
    from elastodyn.plot.labels import key_label
    assert key_label("links.lower.section.width") == "links.lower.section.width [m]"
    assert key_label("links.upper.material.E") == "links.upper.material.E [Pa]"
    assert key_label("joints.b") == "joints.b"


def test_real_delta_map_shows_the_legs_period():
    """Kuo's Delta along the circle of Fig. 4 (12 poses, 4 modes): one axes per mode, and
    what they show has the 120-degree period of the three legs (the symmetry of the
    robot, not of the figure: equal to the eigen-solver's and the deflection's
    tolerances, 1e-6)."""
    from elastodyn.analysis.modes import frequency_map
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    model = build_model(load_description("delta-kuo2016"), "ked")
    ang = np.arange(0.0, 360.0, 30.0)
    states = [model.state(pose=np.array([0.1 * np.cos(a), 0.1 * np.sin(a), 0.5]))
              for a in np.radians(ang)]
    r = frequency_map(model, states, coordinate=ang, coordinate_name="angle_deg", count=4,
                      robot="delta-kuo2016",
                      path={"path": "circle", "centre_m": [0.0, 0.0, 0.5], "radius_m": 0.1})
    f = np.asarray(r["frequencies_hz"])
    np.testing.assert_allclose(f[0:4], f[4:8], rtol=1e-6)
    np.testing.assert_allclose(f[0:4], f[8:12], rtol=1e-6)
    fig = r.figures()["map"]
    assert len(fig.axes) == 4
    for m, ax in enumerate(fig.axes):   # each axes spans its own mode's range only
        lo, hi = ax.get_ylim()
        assert lo <= f[:, m].min() and f[:, m].max() <= hi
        assert hi - lo < 0.5 * f[:, m].min()
    _check_layout(fig)


def test_which_warnings_are_validity_verdicts():
    from elastodyn.plot.figure import validity_warnings
    verdicts = [VALIDITY,
                "the model's own estimate of how far it may be off: 24% of the peak deviation",
                "ffrf-rr: the linear FFRF model is unstable at the start: its tangent "
                "stiffness has a negative eigenvalue"]
    others = [NOT_VALIDITY, "flexible model: singular configuration at t = 0.39 s: the run "
              "stops there", "repeated frequencies (relative gap <= 1e-06): modes 2, 3"]
    assert validity_warnings(verdicts + others) == verdicts


def test_the_verdict_clause_of_a_warning():
    from elastodyn.plot.figure import verdict_clause
    assert verdict_clause(VALIDITY) == ("elastic displacements beyond the small-deformation "
                                        "range of the linear KED model")
    assert verdict_clause(
        "ffrf-fem-2: short simulation failed (generalized-alpha: Newton did not converge; "
        "the linear FFRF model is unstable at the start: its tangent stiffness has a "
        "negative eigenvalue)") == "ffrf-fem-2: the linear FFRF model is unstable at the start"
    assert verdict_clause("given: " + VALIDITY).startswith("given: elastic displacements")
