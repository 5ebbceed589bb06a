"""Body terms of a planar flexible beam in its floating frame (Boyer & Khalil 1998, as
recalled by Briot & Khalil 2013, section II).

The beam lies along x of its frame, clamped at the origin; a point of the neutral axis at
abscissa s is at r(s) = r0(s) + Phi_d(s) q_e with r0 = (s, 0, 0), and its section rotates
by Phi_r(s) q_e (about z). Phi comes from n planar cubic elements (axial u linear, bending
v cubic Hermite; :class:`elastodyn.fem.elements.BeamElement`), nodes 1..n free: 3n
elastic coordinates (u, v, rz of each node). Inertia is that of the line mass rho A
(Euler-Bernoulli: rotary inertia of the sections neglected, as in the consistent mass
matrix of the same elements).

All the inertia operators of Briot's eq. (4) follow from the constant integrals below
(module :mod:`elastodyn.formulations.nepvp` uses them symbolically):

    m = int dm,  MS0 = int r0 dm,  J0 = int r0 r0^T dm,  MS_de = int Phi_d dm  (3, N)
    e_ab = int Phi_a^T r0_b dm  (N),  Q_ab = int Phi_a^T Phi_b dm  (N, N)

(a, b: x, y, z components; Phi_a: row a of Phi_d), so that with r = r0 + Phi_d q_e:
MS = MS0 + MS_de q_e, int r_a r_b dm = J0_ab + (e_ab + e_ba) . q_e + q_e^T Q_ab q_e and
int Phi_a^T r_b dm = e_ab + Q_ab q_e.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..description.tree import FlexibleBeam
from ..exceptions import InputError
from ..fem.elements import BeamElement, stiffness_matrix
from ..fem.shapes import gauss_legendre_01

__all__ = ["BeamShapes"]

_ELEMENT = BeamElement(spatial=False, order="cubic")
_N_GAUSS = 5  # exact for degree 9 >= the degree 7 of s * Phi * Phi (cubic shapes)


@dataclass(frozen=True)
class BeamShapes:
    """Shape functions and inertia integrals of a :class:`FlexibleBeam`."""

    beam: FlexibleBeam

    @property
    def n(self) -> int:
        return self.beam.elements

    @property
    def N(self) -> int:
        return 3 * self.n

    def _element_rows(self, k: int, xi: np.ndarray):
        """Phi_d (len(xi), 3, N) and Phi_r (len(xi), 3, N) inside element k."""
        le = self.beam.length / self.n
        Nu = _ELEMENT.shape("u", xi, le)
        Nv = _ELEMENT.shape("v", xi, le)
        Nr = _ELEMENT.shape("v", xi, le, deriv=1)
        m = len(xi)
        full = np.zeros((m, 3, 3 * (self.n + 1)))
        rot = np.zeros((m, 3, 3 * (self.n + 1)))
        sl = slice(3 * k, 3 * k + 6)
        full[:, 0, sl] = Nu
        full[:, 1, sl] = Nv
        rot[:, 2, sl] = Nr
        return full[..., 3:], rot[..., 3:]  # node 0 clamped

    def at(self, s: float):
        """Phi_d (3, N) and Phi_r (3, N) at abscissa s in [0, L] [m]."""
        L = self.beam.length
        if not -1e-12 <= s <= L * (1 + 1e-12):
            raise InputError("attachment abscissa", s, f"0 .. {L} m on the beam")
        le = L / self.n
        k = min(int(s / le), self.n - 1)
        d, r = self._element_rows(k, np.array([(s - k * le) / le]))
        return d[0], r[0]

    @cached_property
    def integrals(self) -> dict:
        """m, MS0 (3,), J0 (3, 3), MSde (3, N), e (3, 3, N), Q (3, 3, N, N), Kee (N, N)."""
        b = self.beam
        rA = b.material.rho * b.section.area
        le = b.length / self.n
        x, w = gauss_legendre_01(_N_GAUSS)
        N = self.N
        out = {"m": rA * b.length, "MS0": np.zeros(3), "J0": np.zeros((3, 3)),
               "MSde": np.zeros((3, N)), "e": np.zeros((3, 3, N)), "Q": np.zeros((3, 3, N, N))}
        for k in range(self.n):
            Phi, _ = self._element_rows(k, x)
            s = (k + x) * le
            r0 = np.zeros((len(x), 3))
            r0[:, 0] = s
            wk = rA * le * w
            out["MS0"] += wk @ r0
            out["J0"] += np.einsum("g,ga,gb->ab", wk, r0, r0)
            out["MSde"] += np.einsum("g,gan->an", wk, Phi)
            out["e"] += np.einsum("g,gan,gb->abn", wk, Phi, r0)
            out["Q"] += np.einsum("g,gan,gbm->abnm", wk, Phi, Phi)
        out["Kee"] = self.stiffness
        return out

    @cached_property
    def strain_rows(self):
        """Gauss points of the axial strain: (w EA (G,), N_u' (G, N), N_v' (G, N)) with
        u'(s_g) = N_u'[g] q_e, v'(s_g) = N_v'[g] q_e; 5 points per element integrate the
        von Karman terms (degree <= 8 in s) exactly."""
        b = self.beam
        le = b.length / self.n
        x, w = gauss_legendre_01(_N_GAUSS)
        EA = b.material.E * b.section.area
        W, U, V = [], [], []
        for k in range(self.n):
            up = np.zeros((len(x), 3 * (self.n + 1)))
            vp = np.zeros_like(up)
            up[:, 3 * k:3 * k + 6] = _ELEMENT.shape("u", x, le, deriv=1)
            vp[:, 3 * k:3 * k + 6] = _ELEMENT.shape("v", x, le, deriv=1)
            W.append(EA * le * w)
            U.append(up[:, 3:])
            V.append(vp[:, 3:])
        return np.concatenate(W), np.concatenate(U), np.concatenate(V)

    @cached_property
    def stiffness(self) -> np.ndarray:
        """K_ee (N, N) [N/m, N, N m]: assembled planar element stiffness, node 0 clamped."""
        b = self.beam
        le = b.length / self.n
        Ke = stiffness_matrix(_ELEMENT, le, b.section, b.material)
        K = np.zeros((3 * (self.n + 1),) * 2)
        for k in range(self.n):
            K[3 * k:3 * k + 6, 3 * k:3 * k + 6] += Ke
        return K[3:, 3:]
