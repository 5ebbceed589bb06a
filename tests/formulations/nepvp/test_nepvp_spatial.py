"""Spatial flexible beams in the NE-PVP model (Briot & Khalil 2013, section II: the
generalized Newton-Euler body of Boyer & Khalil with torsion and two bendings), on a
one-leg robot (a revolute joint about z0 carrying a beam along x and a tip body): against
the foundations' spatial finite elements, closed-form statics and torsion, energy
conservation, the planar beam, and an independent Lagrangian derivation."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.analysis.modal import beam_modes
from elastodyn.description.materials import Section
from elastodyn.description.tree import (ALUMINIUM, FlexibleBeam, MDHJoint, RigidBody,
                                        TreeRobot)
from elastodyn.exceptions import InputError
from elastodyn.fem import BeamElement, Link
from elastodyn.fem.assembly import PointMass
from elastodyn.formulations.nepvp.engine import NEPVPEngine

L = 0.5
SEC = Section.rectangle(4e-3, 2e-3)      # two different bending planes



def arm(n=1, *, spatial=True, tip=RigidBody(0.05), gravity=(0.0, 0.0, -9.81),
        stiffening=False):
    beam = FlexibleBeam(L, SEC, ALUMINIUM, n, geometric_stiffening=stiffening,
                        spatial=spatial)
    joints = (MDHJoint("q1", 0, "revolute", True), MDHJoint("tip", 1, "fixed", d=L))
    return TreeRobot("arm", joints, {1: beam}, terminals=(2,), platform=tip,
                     gravity=gravity, closure_rows=(0, 1, 2, 3, 4, 5), home={"q1": 0.0})


@pytest.mark.parametrize("n", [1, 2, 3])
def test_modes_equal_spatial_finite_elements(n):
    """Joint locked: the beam is a clamped-free spatial beam with a tip point mass. The
    foundations' Link assembles the same cubic elements (axial, torsion with its polar
    inertia, two bendings) by another code path: equal to eigen-solver round-off."""
    m = NEPVPEngine(arm(n))
    w, _ = m.modes([0.3])
    link = Link(BeamElement(True, "cubic"), L, n, SEC, ALUMINIUM, ends="clamped-free",
                point_masses=(PointMass(-1, 0.05),))
    ref = beam_modes(link, count=6 * n)
    np.testing.assert_allclose(w, ref.omega_rad_s, rtol=1e-9)


def test_torsion_of_a_tip_disc_by_hand():
    """A tip body with a large polar inertia I_x on one element: torsion is decoupled
    (no first moment), K = G J / L, M = I_x + rho I_p L / 3 (linear torsion shape):
    omega^2 = G J / (L (I_x + rho I_p L / 3)), exact for this mesh."""
    Ix = 2e-4
    m = NEPVPEngine(arm(1, tip=RigidBody(0.05, inertia=np.diag([Ix, 1e-5, 1e-5]))))
    w, V = m.modes([0.0])
    G, rho = ALUMINIUM.G, ALUMINIUM.rho
    ref = np.sqrt(G * SEC.j / (L * (Ix + rho * SEC.ip * L / 3)))
    rx = m.sym.elastic_names.index("e1_rx1")
    k = np.argmax(np.abs(V[rx]) / np.linalg.norm(V, axis=0))
    assert abs(w[k] - ref) < 1e-10 * ref


def test_static_sag_equals_cantilever_formula():
    """Gravity along -z0 bends the beam in x-z (stiffness E I_y): at the tip, w =
    q L^4 / (8 E I) + P L^3 / (3 E I) and the slope w' = q L^3 / (6 E I) + P L^2 /
    (2 E I) (q = rho A g, P = m_tip g); cubic Hermite elements are nodally exact under
    these loads. Linear strain: no axial coupling; 1e-9 relative (Newton tolerance)."""
    m = NEPVPEngine(arm(2))
    q, e = m.static_deflection([0.0])
    names = m.sym.elastic_names
    EI = ALUMINIUM.E * SEC.iy
    qg, P = ALUMINIUM.rho * SEC.area * 9.81, 0.05 * 9.81
    w_tip = -(qg * L ** 4 / (8 * EI) + P * L ** 3 / (3 * EI))
    slope = -(qg * L ** 3 / (6 * EI) + P * L ** 2 / (2 * EI))
    assert abs(e[names.index("e1_w2")] - w_tip) < 1e-9 * abs(w_tip)
    assert abs(-e[names.index("e1_ry2")] - slope) < 1e-9 * abs(slope)
    for c in ("u", "v", "rx", "rz"):
        assert abs(e[names.index(f"e1_{c}2")]) < 1e-12


def test_in_plane_motion_equals_the_planar_beam():
    """With the out-of-plane coordinates (w, rx, ry) and their rates at zero, the spatial
    model's rows and columns of (q1, u, v, rz) equal the planar model (another code
    path: planar shapes, exact rotation about z) to round-off, and the out-of-plane
    forces vanish (no gravity: nothing pushes out of plane)."""
    rng = np.random.default_rng(3)
    ms = NEPVPEngine(arm(2, gravity=(0.0, 0.0, 0.0), stiffening=True))
    mp = NEPVPEngine(arm(2, spatial=False, gravity=(0.0, 0.0, 0.0), stiffening=True))
    names_s, names_p = ms.sym.elastic_names, mp.sym.elastic_names
    idx = [names_s.index(nm) for nm in names_p]
    out = [k for k, nm in enumerate(names_s) if nm not in names_p]
    for _ in range(3):
        ep = rng.normal(scale=3e-3, size=mp.ne)
        edp = rng.normal(scale=0.1, size=mp.ne)
        es, eds = np.zeros(ms.ne), np.zeros(ms.ne)
        es[idx], eds[idx] = ep, edp
        qd = rng.normal(size=1)
        Ms, cs = ms.dynamics(ms.closure([0.2], es), es, qd, eds)
        Mp, cp = mp.dynamics(mp.closure([0.2], ep), ep, qd, edp)
        sel = [0] + [1 + k for k in idx]
        np.testing.assert_allclose(Ms[np.ix_(sel, sel)], Mp, rtol=0,
                                   atol=1e-12 * np.abs(Mp).max())
        np.testing.assert_allclose(cs[sel], cp, rtol=0, atol=1e-12 * np.abs(cp).max())
        assert np.abs(cs[[1 + k for k in out]]).max() < 1e-12 * np.abs(cp).max()


def test_free_spatial_arm_conserves_energy():
    """Unactuated, undamped, no gravity, linear strain (U = e^T K e / 2); a tip body with
    an offset centre of mass and a full inertia; started spinning with bending in both
    planes and torsion (elastic rotations up to 0.1 rad). T + U stays constant to
    1e-9 (DOP853 at rtol 1e-11; measured 1.4e-11). Dropping the rate terms of the
    exact elastic rotation (dTm/dt phi_dot) gives a 49 % energy error: the test sees
    the kinematics of a frame carried by a spatial beam."""
    from elastodyn.formulations.nepvp.simulation import simulate_direct
    tip = RigidBody(0.05, ms=(1e-3, 5e-4, -7.5e-4),
                    inertia=np.diag([2e-5, 3e-5, 4e-5]) + 1e-6)
    m = NEPVPEngine(arm(1, tip=tip, gravity=(0.0, 0.0, 0.0)))
    K = m.stiffness
    t, qa, qda, e, ed, Q = simulate_direct(
        m, [0.0], 0.2, qd_a0=[3.0], e0=np.array([1e-4, 2e-3, -3e-3, 0.05, 0.01, 0.004]),
        ed0=np.array([0, 0.05, 0.1, 2.0, -0.3, 0.2]), step=5e-3, rtol=1e-11, atol=1e-14)
    E = []
    for k in range(len(t)):
        M, _ = m.dynamics(Q[k], e[k], qda[k], ed[k])
        v = np.concatenate([qda[k], ed[k]])
        E.append(0.5 * v @ M @ v + 0.5 * e[k] @ K @ e[k])
    E = np.array(E)
    assert np.abs(e[:, 3]).max() > 0.05                 # large torsion reached
    assert np.abs(E - E[0]).max() < 1e-9 * E[0]


def test_spatial_flag_is_validated():
    with pytest.raises(InputError, match="spatial"):
        FlexibleBeam(L, SEC, ALUMINIUM, spatial="yes")


def test_compiled_driver_on_a_serial_robot():
    """One leg, no closure equation: the compiled RK4 driver (no Newton) equals the
    Python DOP853 path along a bang-bang swing of the joint (RK4 at h <= 1e-4 s against
    rtol 1e-10: 1e-8 measured, 1e-6 asserted); the platform rows are all six twist
    components."""
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    m = NEPVPEngine(arm(1, stiffening=True))
    traj = BangBang([0.0], [0.5], t0=0.0, tf=0.5)
    a = simulate_motion(m, traj, end=0.2)
    b = simulate_motion(m, traj, end=0.2, method="dop853", rtol=1e-10, atol=1e-13)
    assert a.rows == ("x", "y", "z")
    assert np.abs(a.e - b.e).max() < 1e-6 * np.abs(b.e).max()
    np.testing.assert_allclose(a.tau, b.tau, rtol=0, atol=1e-6 * np.abs(b.tau).max())


@pytest.mark.parametrize("n", [1, 2])
def test_recursive_model_equals_lagrange_equations(n):
    """The recursive NE-PVP model of the spatial arm against the Lagrange equations of
    the same discretized system derived from its energies by an independent code path
    (reference_spatial_arm_lagrange: world positions of the beam points, the exact tip
    rotation Rz Ry Rx of the tip angles, torsion inertia, polynomial algebra in sin and
    cos). A tip body with an offset centre of mass and a full inertia, gravity, random
    states with tip rotations of tenths of a radian: M and c agree to 1e-10 relative
    (both exact up to round-off). Linear strain on both sides."""
    from reference_spatial_arm_lagrange import spatial_arm_lagrange
    mp, MSp = 0.3, np.array([0.01, -0.004, 0.006])
    Ib = np.array([[2e-3, 1e-4, -2e-4], [1e-4, 3e-3, 5e-5], [-2e-4, 5e-5, 4e-3]])
    g = np.array([0.0, 0.0, -9.81])
    m = NEPVPEngine(arm(n, tip=RigidBody(mp, ms=tuple(MSp), inertia=Ib), gravity=tuple(g)))
    rng = np.random.default_rng(20 + n)
    for _ in range(3):
        qa = rng.uniform(-1, 1, 1)
        e = rng.normal(scale=0.02, size=m.ne)
        e[0::6] *= 1e-2                        # axial stretch stays small
        e[-3:] = rng.uniform(-0.5, 0.5, 3)     # tip rotations rx, ry, rz
        qd, ed = rng.normal(size=1), rng.normal(scale=0.5, size=m.ne)
        M, c = m.dynamics(m.closure(qa, e), e, qd, ed)
        ref = spatial_arm_lagrange(qa[0], e, qd[0], ed, L=L, section=SEC,
                                   material=ALUMINIUM, n=n, mp=mp, MSp=MSp, Ip_body=Ib, g=g)
        assert np.abs(M - ref["M"]).max() <= 1e-10 * np.abs(ref["M"]).max()
        assert np.abs(c - ref["c"]).max() <= 1e-10 * np.abs(ref["c"]).max()
