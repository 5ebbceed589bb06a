"""Kuo 2016 eqs. (13)-(16), written out by hand with the errata's corrections, against the
library's generalised multiplier model (MultiplierDeltaEngine) on Kuo's own lumping.

Kuo's Lagrangian (eqs. 10-12) with Z down and V = -g sum(m Z) (errata):

    T = 1/2 (m_P + 3 m2) |Xd|^2 + sum_i 1/2 (m1/3 + m2) L1^2 phid_i^2
    V = -(m_P + 3 m2) g Z_P + (m1/2 + m2) g L1 sum_i sin phi_i

(upper link a uniform rod about A_i, the lower link's mass m2 at both of its ends, as
printed), constraint (eq. 5) Phi_i = |P - P_i|^2 - L2^2 with P_i = ((r + L1 c_i) cos th_i,
(r + L1 c_i) sin th_i, -L1 s_i). The corrected equations of motion:

    (13) (m_P + 3 m2) Xdd - 2 sum lambda_i (X_P - (r + L1 c_i) cos th_i) = F_X
    (14) (m_P + 3 m2) Ydd - 2 sum lambda_i (Y_P - (r + L1 c_i) sin th_i) = F_Y
    (15) (m_P + 3 m2) (Zdd - g) - 2 sum lambda_i (Z_P + L1 s_i) = F_Z
    (16) (m1/3 + m2) L1^2 phidd_i + (m1/2 + m2) g L1 c_i
         - 2 lambda_i L1 [(X_P cos th_i + Y_P sin th_i - r) s_i + Z_P c_i] = tau_i

(Kuo prints X_P + r cos th_i - L1 c_i cos th_i in (13), +g and Z_P - L1 s_i in (15), and
(... + r) s_i - Z_P c_i in (16): Z-up misprints.)
"""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.description.delta import DeltaMasses, RigidDelta, delta_kuo2016
from elastodyn.formulations import MultiplierDeltaEngine

M_P, M1, M2, G = 0.5, 0.0975, 0.117, 9.81
L1, L2, R = 0.5, 0.6, 0.05
TH = np.radians([0.0, 120.0, 240.0])


def kuo_five_steps(X, Xd, Xdd, phi, phid, phidd):
    """Steps 4-5 of Kuo's procedure on eqs. (13)-(16) as corrected above."""
    c, s = np.cos(phi), np.sin(phi)
    mX = M_P + 3 * M2
    # columns: d Phi_i / d X / 2
    P_i = np.stack([(R + L1 * c) * np.cos(TH), (R + L1 * c) * np.sin(TH), -L1 * s], axis=1)
    A = 2.0 * (X - P_i).T
    lam = np.linalg.solve(A, mX * Xdd - mX * np.array([0, 0, G]))
    tau = ((M1 / 3 + M2) * L1**2 * phidd + (M1 / 2 + M2) * G * L1 * c
           - 2 * lam * L1 * ((X[0] * np.cos(TH) + X[1] * np.sin(TH) - R) * s + X[2] * c))
    return lam, tau


@pytest.mark.parametrize("X, Xd, Xdd", [
    ([0.1, 0.0, 0.5], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ([0.1, 0.0, 0.5], [0.0, 0.63, 0.0], [-3.95, 0.0, 0.0]),
    ([-0.05, 0.08, 0.62], [0.4, -0.3, 0.7], [2.0, 5.0, -6.0]),
])
def test_generalised_multiplier_model_reduces_to_kuo_equations(X, Xd, Xdd):
    kuo = delta_kuo2016()
    masses = DeltaMasses(platform=M_P, upper_mass=M1, upper_com_ratio=0.5,
                         upper_inertia=M1 * L1**2 / 12, elbow_mass=M2, platform_joint_mass=M2)
    model = MultiplierDeltaEngine(RigidDelta(kuo.geometry, masses))
    res = model.inverse_dynamics(X, Xd, Xdd)
    st = res.state
    lam, tau = kuo_five_steps(np.array(X), np.array(Xd), np.array(Xdd), st.q[0], st.qd[0],
                              st.qdd[0])
    # same equations in two writings: round-off only
    assert np.allclose(res.multipliers[0], lam, rtol=1e-12, atol=1e-12)
    assert np.allclose(res.torque[0], tau, rtol=1e-12, atol=1e-12)


def test_printed_lumping_counts_the_lower_links_twice():
    """Decision documented in delta_kuo2016: Kuo's m2-at-both-ends lumping carries 2 m2 per
    lower link; the preset's rod equivalent carries m2, so the printed lumping needs larger
    static torques at the centre of the workspace."""
    kuo = delta_kuo2016()
    printed = DeltaMasses(platform=M_P, upper_mass=M1, upper_com_ratio=0.5,
                          upper_inertia=M1 * L1**2 / 12, elbow_mass=M2, platform_joint_mass=M2)
    total = lambda m: m.platform + 3 * (m.upper_mass + m.elbow_mass + m.platform_joint_mass  # noqa: E731
                                        + m.lower_com_mass)
    assert total(printed) == pytest.approx(M_P + 3 * M1 + 6 * M2)
    assert total(kuo.masses) == pytest.approx(M_P + 3 * M1 + 3 * M2)
    X = [0.0, 0.0, 0.5]
    tau_printed = MultiplierDeltaEngine(RigidDelta(kuo.geometry, printed)).inverse_dynamics(
        X, [0, 0, 0], [0, 0, 0]).torque
    tau_rod = MultiplierDeltaEngine(kuo).inverse_dynamics(X, [0, 0, 0], [0, 0, 0]).torque
    assert np.all(np.abs(tau_printed) > np.abs(tau_rod))
