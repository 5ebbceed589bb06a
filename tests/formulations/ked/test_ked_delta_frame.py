"""KED flexible Delta against an independent 3-D frame finite-element model.

The reference (tests/references/reference_delta_frame.py, written separately) assembles the same
elements in world components with the joints as linear constraints solved in their null
space, computes its own inverse kinematics and its own preload (linear static solve,
element-wise axial force recovery). The KED model builds explicit generalized
coordinates through the linearized chain (S maps). At rest both describe the same
linear structure: frequencies, static deflection and link forces must agree to round-off.
"""
from dataclasses import replace

import numpy as np
import pytest

from elastodyn.description.flexible_delta import Payload, Platform, flexible_delta_kuo2016
from elastodyn.description.materials import STEEL, Material, Section
from elastodyn.formulations.ked.engine import KEDEngine as _KED

from reference_delta_frame import frame_delta

JOINTS = ("universal", "spherical", "clamped")
CASES = [(b, d) for b in JOINTS for d in JOINTS]


def KEDEngine(*args, **kwargs):
    """Kuo's KED about the undeformed configuration: the frame model is linear there
    (the deflected reference has its own test, tests/formulations/ked/test_ked_deflected.py)."""
    return _KED(*args, reference="undeformed", **kwargs)


@pytest.fixture(scope="module")
def robot():
    return flexible_delta_kuo2016()


@pytest.mark.parametrize("joints", CASES)
@pytest.mark.parametrize("n,order", [(1, "cubic"), (2, "cubic"), (1, "quintic")])
def test_frequencies_static_deflection_and_forces_match_frame_model(robot, joints, n, order):
    X = np.array([0.1, 0.0, 0.5])
    m0 = KEDEngine(robot, elements=n, order=order, joint_b=joints[0], joint_d=joints[1])
    # With mechanisms (ball joints) the preload would come from a least-squares solve
    # that is not an equilibrium; its minimum-norm solution depends on the coordinates,
    # so the two models are compared without preload there.
    preload = m0.mechanisms == 0
    m = KEDEngine(robot, elements=n, order=order, joint_b=joints[0], joint_d=joints[1],
                      preload=preload)
    count = 12
    ref = frame_delta(X, n_elements=n, order=order, joint_b=joints[0], joint_d=joints[1],
                      preload=preload, count=count)
    assert m.dof == ref["dof"]
    assert m.mechanisms == ref["mechanisms"]
    w = m.modes(X, count).omega_rad_s
    wr = np.asarray(ref["omega_rad_s"])
    # eigenvalue round-off ~ eps * lambda_max (~1e13 rad^2/s^2 for the axial modes):
    # absolute error of omega^2 ~ 1e-2, i.e. relative 1e-9 at the first mode (~400
    # rad^2/s^2); zero modes within sqrt(1e-2) ~ 0.1 rad/s of zero in either model.
    nz = wr > 1.0
    np.testing.assert_allclose(w[nz], wr[nz], rtol=1e-8)
    assert np.all(w[~nz] < 1.0)
    if m.mechanisms == 0:
        d = m.static_deflection(X)
        # static solve with condition ~1e10: 1e-7 relative
        np.testing.assert_allclose(d[:6], ref["platform_static"], rtol=1e-7,
                                   atol=1e-7 * np.abs(d[:6]).max())
        s = m.at_rest(X)
        np.testing.assert_allclose(s.end_force, ref["axial_end_force"], rtol=1e-7,
                                   atol=1e-9)


# ---------------------------------------------------------------------------------------
# A user's Delta: link groups of their own section and material, a general platform and
# an offset payload
# ---------------------------------------------------------------------------------------
ALU = Material(E=70e9, G=26e9, rho=2700.0)
UPPER = (Section.circle(10e-3), ALU)                    # 10 mm round aluminium
LOWER = (Section.rectangle(8e-3, 4e-3), STEEL)          # 8 x 4 mm steel
PAYLOAD = Payload(0.3, (0.04, -0.02, 0.03),
                  ((4e-4, 1e-5, -2e-5), (1e-5, 3e-4, 3e-5), (-2e-5, 3e-5, 5e-4)))


def _user_robot(robot, payload=None, platform=None, gravity=None):
    return replace(robot, section=UPPER[0], material=UPPER[1], lower_section=LOWER[0],
                   lower_material=LOWER[1], payload=payload,
                   platform=robot.platform if platform is None else platform,
                   gravity=robot.gravity if gravity is None else gravity)


def _bodies(robot):
    """The robot's platform and payload as the reference's separate rigid bodies."""
    out = [(robot.platform.mass, np.array(robot.platform.com), robot.platform.inertia_tensor)]
    if robot.payload is not None:
        p = robot.payload
        out.append((p.mass, p.com_offset, p.inertia_com))
    return out


def _compare(m, X, ref, count):
    """Frequencies, static sag (6 platform variables) and link end forces of the KED model
    m against the frame reference's output ref (tolerances of the test above)."""
    assert m.dof == ref["dof"]
    assert m.mechanisms == ref["mechanisms"]
    w = m.modes(X, count).omega_rad_s
    wr = np.asarray(ref["omega_rad_s"])
    nz = wr > 1.0
    np.testing.assert_allclose(w[nz], wr[nz], rtol=1e-8)
    assert np.all(w[~nz] < 1.0)
    if m.mechanisms == 0:
        d = m.static_deflection(X)
        np.testing.assert_allclose(d[:6], ref["platform_static"], rtol=1e-7,
                                   atol=1e-7 * np.abs(d[:6]).max())
        np.testing.assert_allclose(m.at_rest(X).end_force, ref["axial_end_force"],
                                   rtol=1e-7, atol=1e-9)
        return d


@pytest.mark.parametrize("joints", CASES)
@pytest.mark.parametrize("n,order", [(1, "cubic"), (2, "cubic"), (1, "quintic")])
def test_distinct_link_sections_and_materials_match_frame_model(robot, joints, n, order):
    """10 mm round aluminium upper links and 8 x 4 mm steel lower links (their weak axis
    along the lower link's z): each group's matrices from its own section and material in
    both models, same round-off as the Kuo robot above."""
    X = np.array([0.1, 0.0, 0.5])
    rb = _user_robot(robot)
    kw = dict(elements=n, order=order, joint_b=joints[0], joint_d=joints[1])
    m0 = KEDEngine(rb, **kw)
    preload = m0.mechanisms == 0  # see the test above
    m = KEDEngine(rb, preload=preload, **kw)
    ref = frame_delta(X, n_elements=n, order=order, joint_b=joints[0], joint_d=joints[1],
                      preload=preload, count=12, upper=UPPER, lower=LOWER)
    _compare(m, X, ref, 12)


@pytest.mark.parametrize("joints", [("universal", "universal"), ("universal", "clamped"),
                                    ("clamped", "spherical")])
@pytest.mark.parametrize("gravity", [(0.0, 0.0, 9.81), (1.5, -2.0, 9.5)])
def test_offset_payload_tilts_the_platform_as_in_frame_model(robot, joints, gravity):
    """A 0.3 kg payload 5 cm off P with a full inertia tensor on a general platform
    (Platform.rigid: mass, offset centre of mass, inertia): KED lumps platform and
    payload into one body at P (parallel-axis theorem, moment c x m a of the offset
    weight); the reference gives each body its own node at its centre of mass, tied to P
    by constraints. Static tilt, sag, frequencies (the coupled mass matrix) and forces
    agree to the round-off of the test above; gravity along Z and tilted (the load
    formula for any direction of g - X_ddot). The tilt is the payload's doing: without
    it the platform tilts by much less, and the payload side dips (rotation sense of
    c x m g)."""
    X = np.array([0.1, 0.0, 0.5])
    platform = Platform.rigid(0.5, com=(0.0, 0.01, 0.02),
                              inertia=((5e-4, 0.0, 1e-5), (0.0, 4e-4, 0.0), (1e-5, 0.0, 6e-4)))
    rb = _user_robot(robot, PAYLOAD, platform, gravity)
    kw = dict(n_elements=2, joint_b=joints[0], joint_d=joints[1], count=12, upper=UPPER,
              lower=LOWER, gravity=gravity)
    m = KEDEngine(rb, elements=2, joint_b=joints[0], joint_d=joints[1])
    d = _compare(m, X, frame_delta(X, bodies=_bodies(rb), **kw), 12)
    # the same payload mass at P: the tilt changes by far more than the tolerance
    rc = _user_robot(robot, replace(PAYLOAD, com=(0.0, 0.0, 0.0)), platform, gravity)
    d0 = KEDEngine(rc, elements=2, joint_b=joints[0], joint_d=joints[1]).static_deflection(X)
    tilt = d[3:6] - d0[3:6]
    assert np.linalg.norm(tilt) > 1e-3 * np.linalg.norm(d[3:6])
    # the offset weight's moment c x m g and the extra tilt point the same way
    moment = np.cross(PAYLOAD.com_offset, PAYLOAD.mass * np.asarray(gravity))
    assert tilt @ moment > 0
