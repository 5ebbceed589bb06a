"""Robots described only in YAML files, run through the command line, against
independent references written here:

* a flexible link clamped to a hub, with a payload of given mass and rotary inertia at
  its tip: its frequencies against the exact frequency equation of a clamped beam with a
  tip mass and a tip rotary inertia, described as a tree (NE-PVP) and as an arm (assumed
  modes, and NE-PVP through the arm's one-leg tree);
* the same link spinning at constant speed about the hub: the modes about the steady
  motion against the rotating-beam equation (in-plane bending with the centrifugal axial
  force and the centrifugal softening), solved by a Galerkin method on polynomials.
"""
from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import brentq

from elastodyn.cli import main

E, RHO, B, H = 210e9, 7800.0, 0.01, 0.01       # steel, 10 mm x 10 mm
L = 0.5
A, I = B * H, B * H**3 / 12.0
MT, JT = 0.2, 1e-4                              # tip mass [kg], rotary inertia [kg m^2]



def link_yaml(tip_mass=MT, tip_inertia=JT) -> str:
    """One revolute joint about z0 (the hub), a planar beam along x, the payload as the
    platform at the beam's tip; no gravity."""
    return f"""
family: tree
name: hub-link
gravity: [0, 0, 0]
joints:
  - {{name: hub, type: revolute, actuated: true}}
  - {{name: tip, parent: hub, type: fixed, d: {L}}}
bodies:
  hub:
    beam:
      length: {L}
      section: {{shape: rectangle, width: {H}, height: {B}}}
      material: {{E: {E}, G: 80.0e+9, rho: {RHO}}}
terminals: [tip]
platform:
  mass: {tip_mass}
  inertia: [[0, 0, 0], [0, 0, 0], [0, 0, {tip_inertia}]]
closure: [vx, vy, wz]
"""


def run_json(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def clamped_tip_body_frequencies(count, EI, rhoA, L, M, J):
    """Roots of the frequency equation of a clamped-free Euler-Bernoulli beam with a
    tip body: y = a (cosh bx - cos bx) + c (sinh bx - sin bx) (clamped at 0), and at
    x = L (from the Lagrangian's natural conditions): EI y'' = omega^2 J y',
    EI y''' = -omega^2 M y. omega = b^2 sqrt(EI / rhoA) [rad/s]."""
    def det(b):
        w2 = b**4 * EI / rhoA
        ch, sh, c, s = math.cosh(b * L), math.sinh(b * L), math.cos(b * L), math.sin(b * L)
        # columns: (cosh - cos), (sinh - sin) and their derivatives at L
        y = (ch - c, sh - s)
        y1 = (b * (sh + s), b * (ch - c))
        y2 = (b * b * (ch + c), b * b * (sh + s))
        y3 = (b**3 * (sh - s), b**3 * (ch + c))
        r1 = [EI * y2[k] - w2 * J * y1[k] for k in range(2)]
        r2 = [EI * y3[k] + w2 * M * y[k] for k in range(2)]
        return (r1[0] * r2[1] - r1[1] * r2[0]) / (ch * ch)   # scaled: no overflow
    roots, grid = [], np.linspace(1e-3, 40.0 / L, 40000)
    vals = [det(b) for b in grid]
    for b0, b1, v0, v1 in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if v0 == 0.0 or v0 * v1 < 0:
            roots.append(brentq(det, b0, b1, xtol=1e-14))
            if len(roots) == count:
                break
    return np.array(roots) ** 2 * math.sqrt(EI / rhoA)


def test_hub_link_with_tip_payload_matches_the_exact_frequency_equation(tmp_path, capsys):
    """NE-PVP, cubic elements: the three lowest bending frequencies converge to the exact
    ones as h^4 (cubic Hermite bending: relative error ~ (beta_k h)^4 / 720 for mode k,
    beta_k L = 1.9, 4.6, 7.7 here); at 8 elements the bounds 1e-6, 1e-4, 1e-3 hold with
    a margin of 3 to 5 (measured 2e-7, 4e-5, 3e-4), and going from 4 to 8 elements cuts
    the error of the first two at least 8 times."""
    f = tmp_path / "link.yaml"
    f.write_text(link_yaml())
    exact = clamped_tip_body_frequencies(3, E * I, RHO * A, L, MT, JT) / (2 * math.pi)
    errs = []
    for n in (4, 8):
        doc = run_json(["modes", str(f), "--elements", str(n), "--count", "3", "--json"],
                       capsys)
        got = np.array(doc["frequencies_hz"])
        errs.append(np.abs(got / exact - 1))
    assert np.all(errs[1] < [1e-6, 1e-4, 1e-3])
    assert np.all(errs[1][:2] < errs[0][:2] / 8)      # ~h^4 convergence (16x per halving)
    # the payload matters: without it the frequencies are those of the bare cantilever
    exact0 = clamped_tip_body_frequencies(3, E * I, RHO * A, L, 0.0, 0.0) / (2 * math.pi)
    g = tmp_path / "bare.yaml"
    g.write_text(link_yaml(0.0, 0.0))
    doc = run_json(["modes", str(g), "--elements", "8", "--count", "3", "--json"], capsys)
    assert np.all(np.abs(np.array(doc["frequencies_hz"]) / exact0 - 1) < [5e-6, 2e-4, 2e-3])
    assert exact0[0] > 1.5 * exact[0]                 # the payload lowers it by a third


def arm_link_yaml(tip_mass=MT, tip_inertia=JT) -> str:
    """The same link as a planar ARM (Yu's family): one link of the section and
    material, its payload (mass, rotary inertia) at the tip, no gravity. The motor shaft
    angle is the actuated coordinate, locked in ``modes``: the link is clamped at the hub."""
    return f"""
family: arm
name: hub-link-arm
gravity: 0
links:
  - length: {L}
    section: {{shape: rectangle, width: {B}, height: {H}}}
    material: {{E: {E}, G: 80.0e+9, rho: {RHO}}}
payload: {{mass: {tip_mass}, inertia: {tip_inertia}}}
"""


def test_hub_link_arm_file_by_assumed_modes_and_nepvp(tmp_path, capsys):
    """The hub link with its tip payload as an arm file, against the exact frequency
    equation (clamped_tip_body_frequencies):

    * assumed modes, clamped-free basis (cantilever eigenfunctions less their chord
      part): a Ritz method, so every frequency is an upper bound of the exact one
      (checked: errors > 0). The basis cannot hold the tip body's end conditions (the
      chord frame ends at the tip), so it converges slowly, the more so for higher modes:
      measured relative errors at 6 and 12 modes 5.1e-5 -> 7.5e-6 (mode 1, observed
      order 2.8), 1.8e-3 -> 5.1e-4 (mode 2, order 1.8, falling towards 1/s), 1.8e-2 ->
      7.4e-3 (mode 3, order 1.3). Asserted at 12 modes: 2e-5, 1.5e-3, 2e-2 (margins 2.7,
      2.9, 2.7), and halving the error of modes 1-2 at least 4 and 2.5 times from 6 to
      12 modes (orders above 2 and 1.3);
    * NE-PVP with 8 cubic elements through the arm's one-leg tree: h^4 as the tree file
      above (measured 2.3e-7, 3.7e-5, 3.1e-4; asserted 1e-6, 1e-4, 1e-3), upper bounds
      too (consistent mass matrices);
    * NE-PVP with the assumed-mode beams of the same basis equals the assumed-modes
      model (two formulations, one Ritz space: the linearizations' finite differences,
      1e-10 relative; asserted 1e-9).
    """
    f = tmp_path / "arm.yaml"
    f.write_text(arm_link_yaml())
    exact = clamped_tip_body_frequencies(3, E * I, RHO * A, L, MT, JT) / (2 * math.pi)

    def hz(*opts):
        doc = run_json(["modes", str(f), *opts, "--count", "3", "--json"], capsys)
        return np.array(doc["frequencies_hz"]), doc

    amm6, _ = hz("--formulation", "amm", "--basis", "clamped-free", "--modes", "6")
    amm12, doc = hz("--formulation", "amm", "--basis", "clamped-free", "--modes", "12")
    assert doc["formulation"] == "amm" and doc["model"]["modes"] == 12
    e6, e12 = amm6 / exact - 1, amm12 / exact - 1
    assert np.all(e6 > 0) and np.all(e12 > 0)
    assert np.all(e12 < [2e-5, 1.5e-3, 2e-2])
    assert e12[0] < e6[0] / 4 and e12[1] < e6[1] / 2.5
    fe, doc = hz("--formulation", "nepvp", "--elements", "8")
    assert doc["formulation"] == "nepvp" and doc["model"]["elements"] == 8
    err = fe / exact - 1
    assert np.all(err > 0) and np.all(err < [1e-6, 1e-4, 1e-3])
    nep6, _ = hz("--formulation", "nepvp", "--basis", "clamped-free", "--modes", "6")
    np.testing.assert_allclose(nep6, amm6, rtol=1e-9)


def rotating_beam_frequencies(count, EI, rhoA, L, omega, terms=14):
    """In-plane bending of a cantilever spinning at omega about an axis through its root
    (hub radius 0), in the rotating frame: rhoA v_tt + EI v'''' - (N v')' - rhoA
    omega^2 v = 0 with N(x) = rhoA omega^2 (L^2 - x^2) / 2 (the centrifugal axial force;
    the last term is the in-plane centrifugal softening). Galerkin (Rayleigh-Ritz) on
    phi_k = xi^2 P_k(2 xi - 1), xi = x / L, k < terms (clamped root; natural conditions
    at the tip), Gauss-Legendre with 60 points (exact for these polynomial integrands)."""
    import scipy.linalg as sla
    from numpy.polynomial import Legendre, Polynomial
    t, w = np.polynomial.legendre.leggauss(60)
    xi, w = 0.5 * (t + 1), 0.5 * w
    basis = [Polynomial([0, 0, 1]) * Legendre.basis(k, domain=[0, 1]).convert(kind=Polynomial)
             for k in range(terms)]
    phi = np.column_stack([b(xi) for b in basis])
    d1 = np.column_stack([b.deriv(1)(xi) for b in basis]) / L
    d2 = np.column_stack([b.deriv(2)(xi) for b in basis]) / L**2
    N = rhoA * omega**2 * L**2 * (1 - xi**2) / 2
    Mg = rhoA * L * np.einsum("g,gi,gj->ij", w, phi, phi)
    Kg = L * (EI * np.einsum("g,gi,gj->ij", w, d2, d2)
              + np.einsum("g,g,gi,gj->ij", w, N, d1, d1)
              - rhoA * omega**2 * np.einsum("g,gi,gj->ij", w, phi, phi))
    lam = sla.eigh(Kg, Mg, eigvals_only=True)
    return np.sqrt(lam[:count])


def test_spinning_link_modes_about_the_steady_motion(tmp_path, capsys):
    """modes --speed: the link spinning at 100 rad/s about its hub, about the steady
    motion. The reference is right: at low speed it gives the lead-lag Southwell
    coefficient K - 1 = 0.1933 (omega^2 = omega_0^2 + (K - 1) Omega^2; K = 1.1933 for
    the first flapwise mode, literature). The frequencies rise (centrifugal stiffening
    beats the in-plane softening) and converge to the reference as h^2: the beams' axial
    interpolation is linear, so the centrifugal axial force is piecewise constant along
    them (error of the centrifugal shift 32 %, 7.5 %, 1.6 % at 2, 4, 8 elements; of the
    frequencies 7e-3, 1.6e-3, 3.4e-4). Bounds: 5e-4 at 8 elements, and a ratio above 3.5
    from 4 to 8. The model also has the axial stretch and the Coriolis coupling to the
    axial motion, which the reference leaves out (relative effects ~1e-5)."""
    f = tmp_path / "spin.yaml"
    f.write_text(link_yaml(0.0, 0.0))
    Om = 100.0
    ref = rotating_beam_frequencies(2, E * I, RHO * A, L, Om) / (2 * math.pi)
    ref0 = rotating_beam_frequencies(2, E * I, RHO * A, L, 0.0) / (2 * math.pi)
    slow = rotating_beam_frequencies(1, E * I, RHO * A, L, 1.0)[0]
    assert abs((slow**2 - (2 * math.pi * ref0[0]) ** 2) - 0.1933) < 1e-3
    errs = []
    for n in (4, 8):
        doc = run_json(["modes", str(f), "--elements", str(n), "--count", "2", "--speed",
                        str(Om), "--json"], capsys)
        got = np.array(doc["frequencies_hz"])
        errs.append(np.abs(got / ref - 1).max())
    assert errs[1] < 5e-4 and errs[0] / errs[1] > 3.5
    assert got[0] > ref0[0] * 1.01                    # stiffened by the spin
    assert np.abs(np.array(doc["damping_ratio"])).max() < 1e-8   # gyroscopic: no damping
    assert doc["inputs"]["speed"] == [Om]
