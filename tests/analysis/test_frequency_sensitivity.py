"""Exact frequency sensitivities (analysis.frequency_sensitivity) against independent
results: central finite differences of the frequencies of models rebuilt from specs
changed with ``apply_sets`` (the user's --set path, not the complex-step path), Euler's
theorem for homogeneous K and M, a closed-form repeated eigenvalue, and the refusals."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.analysis import frequency_sensitivity as FS
from elastodyn.analysis.frequency_sensitivity import (eigenvalue_derivatives,
                                                      frequency_sensitivities,
                                                      sensitivity_point)
from elastodyn.analysis.modes import modes
from elastodyn.description.files import apply_sets, load_description
from elastodyn.exceptions import InputError
from elastodyn.formulations.registry import build_model

KED = {"reference": "undeformed"}
POSE = (0.1, 0.0, 0.5)        # Kuo 2016 section 5.2


def _fd(spec, key, value, step, formulation, options, pose, count, forward=False):
    """Finite differences of the frequencies [Hz] in ``key``, relative step ``step``,
    each model rebuilt from the spec with the value changed by apply_sets."""
    def freqs(x):
        model = build_model(apply_sets(spec, [f"{key}={float(x)!r}"]), formulation,
                            **options)
        st = model.state(pose=pose) if pose is not None else model.state()
        return modes(model, st, count=count)["frequencies_hz"]
    d = step * abs(value) if value != 0 else step
    if forward:
        return (freqs(value + d) - freqs(value)) / d
    return (freqs(value + d) - freqs(value - d)) / (2 * d)


def _check_fd(spec, keys, formulation, options, pose, count, rtol):
    r = frequency_sensitivities(spec, keys, formulation=formulation, options=options,
                                state=None if pose is None else {"pose": pose},
                                count=count)
    for j, key in enumerate(keys):
        fd = _fd(spec, key, r["nominal_values"][j], 1e-3, formulation, options, pose, count)
        exact = r["d_f_d_p"][:, j]
        scale = np.abs(fd).max()
        assert scale > 0, key
        np.testing.assert_allclose(exact, fd, rtol=0, atol=rtol * scale, err_msg=key)
    return r


# Tolerance of the finite-difference checks: central differences with a relative step
# h = 1e-3 have a truncation error O(h^2) ~ 1e-6 of the derivative (p^2 f''' / f' of
# order 1 for these power-law dependences) and a round-off error eps_f / (h s), where
# eps_f ~ 1e-11 is the relative accuracy of the computed frequencies (eigh, eps
# lambda_max / lambda) and s the entry's log-sensitivity, down to 1e-3 for a platform
# mass: 1e-5 of the column's largest derivative covers both, 1e-4 for the masses of the
# 3PRR's platform (s ~ 1e-3). A dropped term would be an O(1) error.
def test_ffrf_slider_crank_equals_finite_differences():
    spec = load_description("slider-crank-simeon")
    _check_fd(spec, ["bodies.a.beam.material.E", "bodies.a.beam.section.width",
                     "bodies.a.beam.section.height", "bodies.a.beam.material.rho",
                     "bodies.s.rigid.mass"], "ffrf", {}, None, 4, 1e-5)
    # its default formulation (nepvp) refuses a joint's MDH angle (math.cos of it)
    with pytest.raises(InputError, match="differentiated exactly"):
        frequency_sensitivities(spec, ["joints.1.gamma"])


def test_ffrf_circle_section_diameter_equals_finite_differences():
    from elastodyn.description.schema import parse_spec
    data = load_description("slider-crank-simeon").model_dump(mode="json",
                                                             exclude_none=True)
    data["bodies"]["a"]["beam"]["section"] = {"shape": "circle", "diameter": 0.01}
    spec = parse_spec(data)
    _check_fd(spec, ["bodies.a.beam.section.diameter"], "ffrf", {}, None, 3, 1e-5)


def test_ffrf_3prr_mass_properties_and_platform_equal_finite_differences():
    spec = apply_sets(load_description("3prr-rosyid2020"),
                      ["platform.mass=2.0", "platform.com=[0.01, 0.02, 0.0]",
                       "platform.inertia=[[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.02]]"])
    _check_fd(spec, ["bodies.a1.beam.material.E", "bodies.b2.beam.section.height",
                     "bodies.a1.beam.mass_properties.mass",
                     "bodies.a1.beam.mass_properties.centre_of_mass",
                     "bodies.a1.beam.mass_properties.inertia"], "ffrf", {}, None, 3, 1e-5)
    _check_fd(spec, ["platform.mass", "platform.com.1", "platform.inertia.2.2"], "ffrf",
              {}, None, 3, 1e-4)


def test_ked_undeformed_equals_finite_differences():
    spec = apply_sets(load_description("delta-kuo2016"),
                      ["payload.mass=0.2", "payload.com=[0.01, 0.0, 0.02]",
                       "payload.inertia=[[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 1.5e-3]]"])
    _check_fd(spec, ["links.lower.material.E", "links.upper.section.width",
                     "links.lower.section.height", "links.upper.material.rho",
                     "links.upper.material.G", "platform.mass", "payload.mass",
                     "payload.com.0", "payload.inertia.2.2"], "ked", KED, POSE, 6, 1e-5)


def test_ked_circle_section_two_elements_equals_finite_differences():
    """Two elements per link, a circular lower section (diameter: I ~ d^4, truncation
    of the differences ~ 1e-6 here, hence 1e-5), the pose given as a State."""
    from elastodyn.description.schema import parse_spec
    data = load_description("delta-kuo2016").model_dump(mode="json", exclude_none=True)
    data["links"]["lower"]["section"] = {"shape": "circle", "diameter": 0.006}
    spec = parse_spec(data)
    opts = {**KED, "elements": 2}
    r = _check_fd(spec, ["links.lower.section.diameter", "links.upper.section.height"],
                  "ked", opts, POSE, 4, 1e-5)
    state = build_model(spec, "ked", **opts).state(pose=POSE)
    r2 = frequency_sensitivities(spec, ["links.lower.section.diameter"], options=opts,
                                 state=state, count=4)
    np.testing.assert_allclose(r2["d_f_d_p"][:, 0], r["d_f_d_p"][:, 0], rtol=1e-12)


GEOMETRY_KED = ["links.upper.length", "links.lower.length", "geometry.base_radius",
                "geometry.platform_radius", "geometry.leg_angles.1", "platform.thickness",
                "gravity.2"]


def test_ked_geometry_equals_finite_differences():
    """Geometry entries of the KED Delta about the undeformed reference (with the gravity
    preload and a payload): the platform position is held, the actuated angles follow
    from the inverse kinematics of the changed geometry. Same tolerance as above
    (observed 1e-7..2e-5 at the relative step 1e-3: the leg angle, 2.09 rad, has the
    largest third derivative; truncation O(h^2) ~ 2e-5 there, hence 1e-4 for it)."""
    spec = apply_sets(load_description("delta-kuo2016"),
                      ["payload.mass=0.2", "payload.com=[0.01, 0.0, 0.02]",
                       "payload.inertia=[[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 1.5e-3]]"])
    keys = [k for k in GEOMETRY_KED if "leg_angles" not in k]
    _check_fd(spec, keys, "ked", KED, POSE, 6, 1e-5)
    _check_fd(spec, ["geometry.leg_angles.1"], "ked", KED, POSE, 6, 1e-4)


DEFL = {"reference": "deflected"}
PAYLOAD = ["payload.mass=0.2", "payload.com=[0.01, 0.0, 0.02]",
           "payload.inertia=[[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 1.5e-3]]"]


# Deflected reference (exact jets, Newton in complex arithmetic) against finite
# differences of models rebuilt with apply_sets: Richardson-extrapolated central
# differences R = (4 D(h/2) - D(h)) / 3, D(h) = (f(p + h) - f(p - h)) / 2h, relative
# step 1e-2 (absolute 0.1 for an entry whose nominal value is 0, e.g. gravity.0 in
# m/s^2). Truncation O(h^4 p^4 f^(5) / f'): measured for a section height (I ~ h^3, the
# largest) plain central differences err by 1.2e-4 / 1.3e-5 / 1.0e-6 of the column at
# h = 3e-3 / 1e-3 / 3e-4, falling as h^2 to the exact value, so the extrapolation at
# 1e-2 errs by ~1e-6. Round-off: the deflected model's frequencies carry a relative
# noise eps_f <= 1e-10 (measured on the three lowest modes, ~3 Hz; 3e-12 on the higher),
# independent of Newton's tolerance (eigenvalue round-off, eps lambda_max / lambda); the
# extrapolation amplifies it to <= 3 eps_f f / h: the tolerance is 1e-5 of the column's
# largest derivative plus that bound with eps_f = 1e-9 (x 10), which matters only for
# entries of small log-sensitivity (a payload's com, a horizontal gravity). Steps of
# 1e-5..1e-6 of plain differences drown in that noise (measured 4e-5..3e-4 of the
# column). A dropped imaginary part anywhere in the build (e.g. the deflection's
# dependence on p) is an O(1e-2..1) error.
def _check_fd_steps(spec, keys, options, count, step=1e-2, rtol=1e-5, eps_f=1e-9):
    r = frequency_sensitivities(spec, keys, options=options, state={"pose": POSE},
                                count=count)
    assert r.model["reference"] == options.get("reference", "deflected")
    f = r["frequencies_hz"]
    for j, key in enumerate(keys):
        v = r["nominal_values"][j]
        h = step if v != 0 else 10 * step          # _fd: relative, absolute at 0
        d = h * abs(v) if v != 0 else h
        fd = (4 * _fd(spec, key, v, h / 2, "ked", options, POSE, count)
              - _fd(spec, key, v, h, "ked", options, POSE, count)) / 3
        scale = np.abs(fd).max()
        assert scale > 0, key
        tol = rtol * scale + 3 * eps_f * f.max() / d
        np.testing.assert_allclose(r["d_f_d_p"][:, j], fd, rtol=0, atol=tol,
                                   err_msg=key)
    return r


def test_ked_deflected_materials_sections_masses_equal_finite_differences():
    spec = apply_sets(load_description("delta-kuo2016"), PAYLOAD)
    _check_fd_steps(spec, ["links.lower.material.E", "links.upper.material.E",
                           "links.upper.material.G", "links.lower.material.rho",
                           "links.upper.section.width", "links.lower.section.height",
                           "platform.mass", "payload.mass", "payload.com.0",
                           "payload.com.2", "payload.inertia.2.2", "payload.inertia.0.0"],
                    DEFL, 6)


def test_ked_deflected_geometry_and_gravity_equal_finite_differences():
    spec = apply_sets(load_description("delta-kuo2016"), PAYLOAD)
    keys = [k for k in GEOMETRY_KED if "leg_angles" not in k] + ["gravity.0"]
    _check_fd_steps(spec, keys + ["geometry.leg_angles.1"], DEFL, 6)


def test_ked_deflected_another_delta_equals_finite_differences():
    """Another Delta by --set style changes: a circular lower section, longer links,
    a larger platform, a payload off-centre, two elements per link."""
    from elastodyn.description.schema import parse_spec
    data = load_description("delta-kuo2016").model_dump(mode="json", exclude_none=True)
    data["links"]["lower"]["section"] = {"shape": "circle", "diameter": 0.008}
    spec = apply_sets(parse_spec(data),
                      PAYLOAD + ["links.upper.length=0.25", "links.lower.length=0.55",
                                 "geometry.platform_radius=0.06"])
    _check_fd_steps(spec, ["links.lower.section.diameter", "links.upper.section.height",
                           "links.lower.material.E", "links.lower.length",
                           "geometry.base_radius", "payload.mass", "payload.com.2",
                           "gravity.2"], {**DEFL, "elements": 2}, 6)


def test_ked_deflected_stiff_limit_is_the_undeformed_reference():
    """E and G x s: the sag (~ 1/s) vanishes and the deflected reference's
    sensitivities approach the undeformed reference's (with its preload) at first order
    in 1/s (measured gaps, largest over the modes relative to each column: 0.21, 0.024,
    2.5e-3, 2.5e-4, 2.5e-5 for s = 1, 10 ... 1e4)."""
    spec = load_description("delta-kuo2016")
    keys = ["links.lower.section.width", "links.upper.length", "platform.mass",
            "geometry.platform_radius"]

    def gap(s):
        sp = apply_sets(spec, [f"links.{ln}.material.{k}="
                               f"{s * getattr(getattr(spec.links, ln).material, k)!r}"
                               for ln in ("upper", "lower") for k in ("E", "G")])
        a = frequency_sensitivities(sp, keys, options=DEFL, state={"pose": POSE},
                                    count=6)["d_f_d_p"]
        b = frequency_sensitivities(sp, keys, options=KED, state={"pose": POSE},
                                    count=6)["d_f_d_p"]
        return (np.abs(a - b).max(axis=0) / np.abs(b).max(axis=0)).max()

    g0, g2, g3 = gap(1.0), gap(1e2), gap(1e3)
    assert g0 > 1e-2                      # the sag matters at the nominal stiffness
    assert g3 < 1e-3 * g0 * 2             # ~ 1/s
    assert 0.08 < g3 / g2 < 0.12          # first order in 1/s: ratio 1/10


def test_ked_geometry_mechanism_and_elements():
    """A spherical joint at D (three mechanism freedoms held by the preload: the quasi-
    static link forces come from a minimum-norm least-squares solve, whose complex-step
    derivative is the pseudo-inverse's, ked_delta._complex_step_min_norm) and two
    quintic elements per link. Tolerance 1e-4 of the column's largest derivative: the
    mechanism modes' frequencies (from the preload alone) carry a round-off ~1e-11 of
    the least-squares solution, which central differences at the step 1e-3 amplify to
    ~1e-5 (observed 3e-6..1e-5, independent of the step: round-off, not truncation);
    the quintic elements' round-off likewise (observed 8e-6 at the step 1e-3, 3e-5 at
    1e-4)."""
    spec = apply_sets(load_description("delta-kuo2016"), ["joints.d=spherical"])
    _check_fd(spec, ["links.upper.length", "geometry.base_radius"], "ked", KED,
              (0.05, 0.1, 0.55), 6, 1e-4)
    _check_fd(load_description("delta-kuo2016"), ["links.lower.length",
                                                  "geometry.platform_radius"],
              "ked", {**KED, "elements": 2, "order": "quintic"}, (0.05, 0.1, 0.55), 6, 1e-4)


def test_ked_leg_angle_rotation_invariance():
    """Turning the three legs together about Z (leg angles theta_i + a) and the pose
    with them (X -> R_z(a) X) turns the whole robot, the platform disc, gravity (along Z)
    included: the frequencies do not change, so d/da = 0 gives
    sum_i df/dtheta_i + grad_X f . (e_z x X) = 0, at X = (0.1, 0, 0.5) m:
    sum_i df/dtheta_i = -0.1 m df/dY. The angle terms are exact, the pose term a central
    difference in Y (step 1e-4 m, 1e-3 of the 0.1 m lever: truncation ~1e-6, round-off
    ~1e-11 f / 1e-4 m): tolerance 1e-6 of the largest single-angle derivative
    (observed 1.4e-7; 1e-6 at the step 1e-5 m, round-off). (On the axis the check is void: each simple mode is even in a single
    leg angle by the mirror symmetry through that leg's plane.)"""
    keys = [f"geometry.leg_angles.{i}" for i in range(3)]
    spec = load_description("delta-kuo2016")
    r = frequency_sensitivities(spec, keys, options=KED, state={"pose": POSE}, count=6)
    d = r["d_f_d_p"]
    model = build_model(spec, "ked", **KED)
    h = 1e-4
    fp, fm = (modes(model, model.state(pose=(POSE[0], y, POSE[2])), count=6)
              ["frequencies_hz"] for y in (h, -h))
    pose = -POSE[0] * (fp - fm) / (2 * h)
    assert np.abs(d).max() > 0.1                       # each angle alone matters
    np.testing.assert_allclose(d.sum(axis=1), pose, rtol=0, atol=1e-6 * np.abs(d).max())


def test_ked_dimensional_analysis():
    """Buckingham: a change of the length unit by lambda leaves the frequencies [1/s]
    unchanged while each entry scales by lambda^d (d its length dimension: lengths,
    radii, section sizes, the disc's thickness, gravity and the pose 1; E, G -1; rho
    -3; masses and angles 0). Differentiating f(lambda^d p, lambda X) = f(p, X) at
    lambda = 1 (Euler): sum_j d_j (p_j/f) df/dp_j + sum_k (X_k/f) df/dX_k = 0. The entry
    terms are exact; the pose term (the pose is not a description entry) is a central
    difference of the frequencies in X (relative step 1e-4: truncation ~1e-8, round-off
    ~1e-11/1e-4 ~ 1e-7 of log-sensitivities of order 1; observed 3.5e-7 against entry
    sums up to 0.93); tolerance 2e-6."""
    dims = {f"links.{g}.{k}": d for g in ("upper", "lower") for k, d in (
        ("length", 1), ("section.width", 1), ("section.height", 1), ("material.E", -1),
        ("material.G", -1), ("material.rho", -3))}
    dims.update({"geometry.base_radius": 1, "geometry.platform_radius": 1,
                 "platform.thickness": 1, "gravity.2": 1, "platform.mass": 0})
    keys = list(dims)
    spec = load_description("delta-kuo2016")
    r = frequency_sensitivities(spec, keys, options=KED, state={"pose": POSE}, count=6)
    entries = r["log_sensitivity"] @ np.array([dims[k] for k in keys], dtype=float)
    model = build_model(spec, "ked", **KED)
    f0 = r["frequencies_hz"]

    def freqs(X):
        return modes(model, model.state(pose=X), count=6)["frequencies_hz"]
    pose = 0.0
    for k in (0, 2):                                   # POSE[1] = 0
        h = 1e-4 * POSE[k]
        Xp, Xm = np.array(POSE), np.array(POSE)
        Xp[k] += h
        Xm[k] -= h
        pose = pose + POSE[k] * (freqs(Xp) - freqs(Xm)) / (2 * h) / f0
    assert np.abs(entries).max() > 0.5                 # not trivially zero
    np.testing.assert_allclose(entries + pose, 0.0, atol=2e-6)


def _fd_one_sided(spec, key, value, step, formulation, options, count):
    """Second-order one-sided differences (-3 f(p) + 4 f(p + d) - f(p + 2 d)) / (2 d),
    d = step |p|, of the frequencies [Hz], models rebuilt with apply_sets: for an entry
    that the description allows to grow only (a beam whose joint sits at its tip: a
    shorter beam would lose the joint)."""
    def freqs(x):
        model = build_model(apply_sets(spec, [f"{key}={float(x)!r}"]), formulation,
                            **options)
        return modes(model, model.state(), count=count)["frequencies_hz"]
    d = step * abs(value)
    return (-3 * freqs(value) + 4 * freqs(value + d) - freqs(value + 2 * d)) / (2 * d)


@pytest.mark.parametrize("robot, options, keys, rtol", [
    # truncation O(step^2 p^2 f'''/f'): observed 2.6e-3 at the step 1e-3 and 2.7e-5 at
    # 1e-4 (second order) for the slider-crank's coupler, whose first mode barely
    # depends on it (log-sensitivity 1e-3, large relative curvature): 1e-4; the 3PRR's
    # beams: 6.6e-7 and 1.9e-6 at 1e-4: 1e-5
    ("slider-crank-simeon", {}, ["bodies.a.beam.length"], 1e-4),
    ("slider-crank-simeon", {"shape": "sine"}, ["bodies.a.beam.length"], 1e-4),
    ("3prr-rosyid2020", {}, ["bodies.a1.beam.length", "bodies.b2.beam.length"], 1e-5),
])
def test_ffrf_beam_length_equals_finite_differences(robot, options, keys, rtol):
    """A beam's length with its joints where they are (the slider-crank's coupler and
    the 3PRR's links carry a joint at the tip: the beam grows past it), its section
    or mass properties unchanged; the loops closed again by the changed model."""
    spec = load_description(robot)
    r = frequency_sensitivities(spec, keys, formulation="ffrf", options=options, count=3)
    for j, key in enumerate(keys):
        fd = _fd_one_sided(spec, key, r["nominal_values"][j], 1e-4, "ffrf", options, 3)
        np.testing.assert_allclose(r["d_f_d_p"][:, j], fd, rtol=0,
                                   atol=rtol * np.abs(fd).max(), err_msg=key)


def test_ffrf_joint_offsets_equal_finite_differences():
    """Joint offsets (MDH d) of the slider-crank's closed loop at the crank angle 0.5
    rad (actuated coordinate held, the loop closed again): the crank length joints.1.d,
    the coupler's joint on its beam joints.2.d (at the beam's tip: it can only move in,
    backward second-order differences), the slider guide's offset joints.3.d (an
    eccentric slider-crank). Every changed model needs an assembled home: the
    differences set it with the change (collinear home: s = d1 + d2; guide offset d3:
    a = asin(d3 / 0.3), b = -a, s = 0.15 + 0.3 cos a). Relative steps 1e-4 (1e-3 m
    absolute for d3 = 0): observed 2e-7, 3e-7 and 4e-7 (second order: 100x per decade);
    tolerance 1e-5."""
    import math
    spec = load_description("slider-crank-simeon")
    keys = ["joints.1.d", "joints.2.d", "joints.3.d"]
    r = frequency_sensitivities(spec, keys, formulation="ffrf", state={"actuated": [0.5]},
                                count=3)

    def freqs(d1=0.15, d2=0.3, d3=0.0):
        a = math.asin(d3 / 0.3)
        sets = [f"joints.1.d={d1!r}", f"joints.2.d={d2!r}", f"joints.3.d={d3!r}",
                f"home.a={a!r}", f"home.b={-a!r}", f"home.s={d1 + d2 * math.cos(a)!r}"]
        model = build_model(apply_sets(spec, sets), "ffrf")
        return modes(model, model.state(actuated=[0.5]), count=3)["frequencies_hz"]
    h1, h2, h3 = 1.5e-5, 3e-5, 1e-4
    fds = [(freqs(d1=0.15 + h1) - freqs(d1=0.15 - h1)) / (2 * h1),
           (3 * freqs() - 4 * freqs(d2=0.3 - h2) + freqs(d2=0.3 - 2 * h2)) / (2 * h2),
           (freqs(d3=h3) - freqs(d3=-h3)) / (2 * h3)]
    for j, fd in enumerate(fds):
        np.testing.assert_allclose(r["d_f_d_p"][:, j], fd, rtol=0,
                                   atol=1e-5 * np.abs(fd).max(), err_msg=keys[j])


def test_ffrf_dimensional_analysis():
    """Buckingham, exact on both sides: a change of the length unit by lambda leaves the
    frequencies [1/s] unchanged while each entry scales by lambda^d (lengths, offsets,
    section sizes, centres of mass 1; E -1; rho -3; inertias 2; masses 0) and the
    actuated crank angle [rad] not at all, so (Euler) sum_j d_j (p_j/f) df/dp_j = 0 for
    every mode, with no pose term (the slider-crank, no gravity, no preload). A wrong or
    missing geometry derivative (the beam's length, the two offsets: log-sensitivities
    of order 1) would leave an O(1) residual; round-off: 1e-9."""
    dims = {"joints.1.d": 1, "joints.2.d": 1, "bodies.a.beam.length": 1,
            "bodies.a.beam.section.width": 1, "bodies.a.beam.section.height": 1,
            "bodies.a.beam.material.E": -1, "bodies.a.beam.material.rho": -3,
            "bodies.c.rigid.com.0": 1, "bodies.c.rigid.inertia.2.2": 2,
            "bodies.s.rigid.mass": 0}
    keys = list(dims)
    r = frequency_sensitivities("slider-crank-simeon", keys, formulation="ffrf",
                                state={"actuated": [0.5]}, count=4)
    S = r["log_sensitivity"]
    geo = S[:, :3]
    assert np.abs(geo).max() > 0.1                     # the geometry terms matter
    np.testing.assert_allclose(S @ np.array([dims[k] for k in keys], float), 0.0,
                               atol=1e-9)


def test_ffrf_3prr_dimensional_analysis():
    """Buckingham on the 3PRR, whose actuated coordinates are lengths (the sliders'
    travels q_k): sum_j d_j (p_j/f) df/dp_j + sum_k (q_k/f) df/dq_k = 0 (see the
    slider-crank's), every entry with a length dimension and a non-zero value: the four
    beams' lengths, sections, E, centres of mass (1, 1, -1, 1) and inertias (2) and the
    four joint offsets of the closed loops (b1, b2 and b3 at the beams' tips, e2, the
    platform's weld on b2). Masses (0), angles (0), rho (does not enter: the mass
    properties are given), G (planar) and gravity (no preload) contribute nothing. The
    entry terms are exact (-0.049, 0.019, -0.021 for the three modes), the actuated term
    a central difference (relative step 1e-4: ~1e-8 observed); tolerance 1e-6."""
    beams = ("a1", "a2", "b2", "a3")
    dims = {f"joints.{j}.d": 1 for j in (2, 5, 6, 9)}
    for b in beams:
        dims.update({f"bodies.{b}.beam.{k}": d for k, d in (
            ("length", 1), ("section.width", 1), ("section.height", 1),
            ("material.E", -1), ("mass_properties.centre_of_mass", 1),
            ("mass_properties.inertia", 2))})
    spec = load_description("3prr-rosyid2020")
    keys = list(dims)
    r = frequency_sensitivities(spec, keys, formulation="ffrf", count=3)
    entries = r["log_sensitivity"] @ np.array([dims[k] for k in keys], float)
    model = build_model(spec, "ffrf")
    q = np.asarray(model.state().actuated, dtype=float)
    f0 = r["frequencies_hz"]
    actuated = 0.0
    for k in range(len(q)):
        h = 1e-4 * max(abs(q[k]), 0.1)
        qp, qm = q.copy(), q.copy()
        qp[k] += h
        qm[k] -= h
        fp, fm = (modes(model, model.state(actuated=x), count=3)["frequencies_hz"]
                  for x in (qp, qm))
        actuated = actuated + q[k] * (fp - fm) / (2 * h) / f0
    assert np.abs(entries).max() > 0.01
    np.testing.assert_allclose(entries + actuated, 0.0, atol=1e-6)


def test_complex_safe_elementary_functions():
    """The analytic continuations of _validate (arctan2, hypot, norm, clip, wrap_angle)
    against their closed-form derivatives, in all four quadrants and across the wrap:
    real parts bitwise those of numpy's functions, imaginary parts h times the
    derivative (to round-off, 1e-12 relative)."""
    from elastodyn import _validate as V
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=50), rng.normal(size=50)
    dx, dy = rng.normal(size=50), rng.normal(size=50)
    h = 1e-30
    xc, yc = x + 1j * h * dx, y + 1j * h * dy
    r2 = x * x + y * y
    a = V.arctan2(yc, xc)
    assert np.array_equal(a.real, np.arctan2(y, x))
    np.testing.assert_allclose(a.imag / h, (x * dy - y * dx) / r2, rtol=1e-12)
    assert np.array_equal(V.arctan2(y, x), np.arctan2(y, x))
    hc = V.hypot(xc, yc)
    np.testing.assert_allclose(hc.real, np.hypot(x, y), rtol=1e-15)
    np.testing.assert_allclose(hc.imag / h, (x * dx + y * dy) / np.sqrt(r2), rtol=1e-12)
    v, dv = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    n = V.norm(v + 1j * h * dv, axis=-1)
    nr = np.linalg.norm(v, axis=-1)
    np.testing.assert_allclose(n.real, nr, rtol=1e-15)
    np.testing.assert_allclose(n.imag / h, np.sum(v * dv, -1) / nr, rtol=1e-12)
    t = np.array([-7.0, -np.pi, -3.0, 0.5, np.pi, 4.0, 10.0])
    w = V.wrap_angle(t + 1j * h)
    assert np.array_equal(w.real, V.wrap_angle(t)) and np.all(w.imag == h)
    assert np.all(np.abs(w.real) <= np.pi)
    c = V.clip(np.array([-2.0, 0.3, 2.0]) + 1j * h, -1.0, 1.0)
    assert c.tolist() == [-1.0, 0.3 + 1j * h, 1.0]


def test_log_sensitivity_to_E_is_one_half():
    """Only the stiffness depends on E (no preload): omega ~ sqrt(E), d ln f / d ln E =
    1/2 for every mode."""
    r = frequency_sensitivities("slider-crank-simeon", ["bodies.a.beam.material.E"],
                                formulation="ffrf", count=4)
    # 1e-9: the round-off of the eigenvalue derivatives (eps times the conditioning)
    np.testing.assert_allclose(r["log_sensitivity"][:, 0], 0.5, atol=1e-9)


def test_ked_euler_homogeneity():
    """K is homogeneous of degree 1 in the moduli (E, G of both links) and M in the
    masses (rho of both links, the platform): by Euler's theorem the log-sensitivities
    sum to 1/2 and -1/2 (no preload); with the gravity preload (loads ~ masses) only
    their total is zero (a common scale of stiffness and mass leaves the frequencies)."""
    stiff = ["links.upper.material.E", "links.lower.material.E", "links.upper.material.G",
             "links.lower.material.G"]
    mass = ["links.upper.material.rho", "links.lower.material.rho", "platform.mass"]
    spec = load_description("delta-kuo2016")
    r = frequency_sensitivities(spec, stiff + mass, options={**KED, "preload": False},
                                state={"pose": POSE}, count=8)
    L = r["log_sensitivity"]
    # 1e-9: the round-off of the eigenvalue derivatives, eps kappa(M, K) ~ 1e-11
    np.testing.assert_allclose(L[:, :4].sum(axis=1), 0.5, atol=1e-9)
    np.testing.assert_allclose(L[:, 4:].sum(axis=1), -0.5, atol=1e-9)
    r = frequency_sensitivities(spec, stiff + mass, options=KED, state={"pose": POSE},
                                count=8)
    np.testing.assert_allclose(r["log_sensitivity"].sum(axis=1), 0.0, atol=1e-9)
    assert np.abs(r["log_sensitivity"][:, :4].sum(axis=1) - 0.5).max() > 1e-4


def test_repeated_eigenvalue_closed_form():
    """K(p) = diag(1, 1, 4) + p [[0, 1, 0], [1, 0, 0], [0, 0, 0]], M = I: eigenvalues
    1 - p, 1 + p, 4; at p = 0 the pair's derivatives are -1, +1 (ascending) whatever
    basis of the pair the solver returns, where Fox & Kapoor on that basis would give
    0, 0 for the basis e1, e2."""
    K = np.diag([1.0, 1.0, 4.0])
    dK = np.zeros((3, 3))
    dK[0, 1] = dK[1, 0] = 1.0
    th = 0.3                                    # any basis of the repeated pair
    Phi = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
    lam = np.diag(Phi.T @ K @ Phi)
    dlam, cluster = eigenvalue_derivatives(lam, Phi, dK, np.zeros((3, 3)))
    np.testing.assert_allclose(dlam[:, 0], [-1.0, 1.0, 0.0], atol=1e-14)
    assert cluster.tolist() == [0, 0, 1]
    # the mass term: M(p) = I + p I scales every eigenvalue by 1/(1+p): -lambda
    dlam, _ = eigenvalue_derivatives(lam, Phi, np.zeros((3, 3)), np.eye(3))
    np.testing.assert_allclose(dlam[:, 0], -lam, atol=1e-14)


def test_ked_repeated_pair_on_the_axis():
    """On the axis of the symmetric Delta the modes come in pairs; a payload inertia
    I_xx breaks the symmetry and splits each pair: the cluster derivatives equal the
    one-sided (forward) differences of the ordered frequencies. Forward differences,
    relative step 1e-5 of I_xx: truncation O(step f'') ~ 1e-5 of the derivative."""
    pose = (0.0, 0.0, 0.5)
    spec = apply_sets(load_description("delta-kuo2016"),
                      ["payload.mass=0.3",
                       "payload.inertia=[[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 1e-3]]"])
    key = "payload.inertia.0.0"
    r = frequency_sensitivities(spec, [key], options=KED, state={"pose": pose}, count=6)
    assert r["cluster"].tolist() == [0, 1, 1, 2, 3, 3]
    assert any("repeated" in w for w in r.warnings)
    exact = r["d_f_d_p"][:, 0]
    assert abs(exact[1] - exact[2]) > 1e-3 * np.abs(exact).max()     # the pair splits
    fd = _fd(spec, key, 1e-3, 1e-5, "ked", KED, pose, 6, forward=True)
    np.testing.assert_allclose(exact, fd, rtol=0, atol=1e-3 * np.abs(fd).max())


def test_entry_outside_the_linearization_has_zero_derivatives():
    # the 3PRR's beams give their mass properties: rho does not enter
    r = frequency_sensitivities("3prr-rosyid2020", ["bodies.a1.beam.material.rho"],
                                count=2)
    assert np.all(r["d_f_d_p"] == 0.0)
    assert any("do not enter" in w for w in r.warnings)


def test_sensitivity_point_arrays():
    out = sensitivity_point("slider-crank-simeon", ["bodies.a.beam.material.E",
                                                    "bodies.a.beam.material.rho"],
                            formulation="ffrf", count=3)
    assert out["keys"] == ("bodies.a.beam.material.E", "bodies.a.beam.material.rho")
    assert out["d_f_d_p"].shape == (3, 2) and out["log_sensitivity"].shape == (3, 2)
    assert out["frequencies_hz"].shape == (3,) and out["cluster"].dtype.kind == "i"
    r = frequency_sensitivities("slider-crank-simeon", ["bodies.a.beam.material.E"],
                                formulation="ffrf", count=3)
    assert r.to_dict()["d_f_d_p"][0][0] > 0 and r.csv().startswith("mode,")


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("robot, formulation, options, key, words", [
    ("delta-kuo2016", "ked", KED, "joints.b", "numeric"),
    ("delta-kuo2016", "ked", KED, "name", "numeric"),
    ("delta-kuo2016", "ked", KED, "links.upper.nothing", "key of an entry"),
    ("delta-kuo2016", "ked", KED, "payload.mass", "present"),
    ("delta-kuo2016", "ked", KED, "motors.inertia", "links.upper.material.E"),
    ("delta-kuo2016", "ked", KED, "motors.friction.viscous", "differentiated exactly"),
    # nepvp and amm carry materials, sections, masses (tests/analysis/
    # test_frequency_sensitivity_symbolic.py); the joints' offsets (the loop closure) and
    # a body's place stay out
    ("prrrp-briot2013", "nepvp", {}, "joints.2.d", "differentiated exactly"),
    ("arm-yu2019", "amm", {}, "links.0.lumped_masses.0.mu", "differentiated exactly"),
    ("arm-yu2019", "amm", {}, "links.0.gear_ratio", "differentiated exactly"),
    ("slider-crank-simeon", "ffrf", {}, "joints.1.gamma", "differentiated exactly"),
])
def test_refused_keys(robot, formulation, options, key, words):
    with pytest.raises(InputError, match=words) as exc:
        frequency_sensitivities(robot, [key], formulation=formulation, options=options,
                                state={"pose": POSE} if formulation == "ked" else None)
    assert exc.value.name == "keys" and key in str(exc.value)


def test_ked_deflected_reference_is_the_default_and_differentiated():
    """The deflected reference (the Delta's default) is no longer refused; its
    sensitivities differ from the undeformed reference's by the sag's effect (a few
    percent: Kuo's robot sags 26 mm)."""
    r = frequency_sensitivities("delta-kuo2016", ["links.lower.material.E"],
                                state={"pose": POSE}, count=4)
    assert r.model["reference"] == "deflected"
    u = frequency_sensitivities("delta-kuo2016", ["links.lower.material.E"],
                                options=KED, state={"pose": POSE}, count=4)
    d = np.abs(r["d_f_d_p"] - u["d_f_d_p"]).max() / np.abs(u["d_f_d_p"]).max()
    assert 1e-3 < d < 0.2


def test_rigid_formulation_refused():
    with pytest.raises(InputError, match="flexible"):
        frequency_sensitivities("delta-kuo2016", ["links.lower.material.E"],
                                formulation="explicit")


def test_cast_to_float_is_refused(monkeypatch):
    """A key whose build casts the complex value to float (a joint's MDH angle through
    math.cos: TypeError) is refused, not returned with a zero derivative."""
    monkeypatch.setitem(FS.DIFFERENTIABLE, "ffrf", FS.DIFFERENTIABLE["ffrf"] +
                        ("joints.*.gamma",))
    with pytest.raises(InputError, match="carries through"):
        frequency_sensitivities("slider-crank-simeon", ["joints.3.gamma"],
                                formulation="ffrf", count=2)


def test_dropped_imaginary_part_is_refused(monkeypatch):
    """A build that drops the imaginary part silently (simulated: the value's real part
    set) leaves K and M real although they depend on the entry: refused."""
    orig = FS._with_value
    monkeypatch.setattr(FS, "_with_value", lambda node, parts, value:
                        orig(node, parts, np.real(value)))
    with pytest.raises(InputError, match="dropped"):
        frequency_sensitivities("slider-crank-simeon", ["bodies.a.beam.material.E"],
                                formulation="ffrf", count=2)
