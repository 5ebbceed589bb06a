"""Body terms of a flexible beam in its floating frame (Boyer & Khalil 1998, as recalled
by Briot & Khalil 2013, section II), planar or spatial.

The beam lies along x of its frame, clamped at the origin; a point of the neutral axis at
abscissa s is at r(s) = r0(s) + Phi_d(s) q_e with r0 = (s, 0, 0), and its section rotates
by the small rotation Phi_r(s) q_e. Phi comes from n cubic elements of the foundations
(:class:`elastodyn.fem.elements.BeamElement`; axial u and torsion phi linear, bending v
and w cubic Hermite), nodes 1..n free:

* planar: 3n elastic coordinates (u, v, rz of each node); Phi_d rows (N_u, N_v, 0),
  Phi_r rows (0, 0, N_v');
* spatial: 6n (u, v, w, rx, ry, rz); Phi_d rows (N_u, N_v, N_w), Phi_r rows (N_phi,
  -N_w', N_v').

Inertia is that of the line mass rho A (Euler-Bernoulli: rotary inertia of bending
neglected, as in the consistent mass matrix of the same elements) plus, for a spatial
beam, the polar moment rho I_p of the sections turning about the axis at the body's
angular velocity plus the torsion rate: T_rot = 1/2 int rho I_p (w_x + N_phi q_e_dot)^2 ds
(first order in the deformation; the torsion term of the element mass matrix).

All the inertia operators of Briot's eq. (4) follow from the constant integrals below
(module :mod:`elastodyn.formulations.nepvp.symbolic` uses them symbolically):

    m = int dm,  MS0 = int r0 dm,  J0 = int r0 r0^T dm,  MS_de = int Phi_d dm  (3, N)
    e_ab = int Phi_a^T r0_b dm  (N),  Q_ab = int Phi_a^T Phi_b dm  (N, N)

(a, b: x, y, z components; Phi_a: row a of Phi_d), so that with r = r0 + Phi_d q_e:
MS = MS0 + MS_de q_e, int r_a r_b dm = J0_ab + (e_ab + e_ba) . q_e + q_e^T Q_ab q_e and
int Phi_a^T r_b dm = e_ab + Q_ab q_e; and for the torsion inertia

    Ip = int rho I_p ds,  MS_phi = int rho I_p N_phi ds  (N),  M_phi = int rho I_p N_phi N_phi^T ds
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...description.tree import FlexibleBeam
from ...exceptions import InputError
from ...fem.elements import BeamElement, stiffness_matrix
from ...fem.shapes import gauss_legendre_01

__all__ = ["BeamShapes"]

_ELEMENTS = {False: BeamElement(spatial=False, order="cubic"),
             True: BeamElement(spatial=True, order="cubic")}
_N_GAUSS = 5  # exact for degree 9 >= the degree 7 of s * Phi * Phi (cubic shapes)


@dataclass(frozen=True)
class BeamShapes:
    """Shape functions and inertia integrals of a :class:`FlexibleBeam`."""

    beam: FlexibleBeam

    @property
    def n(self) -> int:
        return self.beam.elements

    @property
    def spatial(self) -> bool:
        return self.beam.spatial

    @property
    def element(self) -> BeamElement:
        return _ELEMENTS[self.spatial]

    @property
    def nd(self) -> int:
        """Elastic coordinates per node (3 planar, 6 spatial)."""
        return self.element.n_node_dofs

    @property
    def modal(self) -> bool:
        return self.beam.shapes != "fe"

    @cached_property
    def _modes(self):
        from ...fem.assumed_modes import ModeShapes   # assumed-mode beams only (start-up)
        return ModeShapes(self.beam.shapes, self.beam.modes)

    @property
    def N(self) -> int:
        return self.beam.modes if self.modal else self.nd * self.n

    def _modal_rows(self, s: np.ndarray):
        """Assumed modes: Phi_d (len(s), 3, N) with row y phi(s/L), Phi_r with row z
        phi'(s/L)/L (the chord frame: phi vanishes at both ends)."""
        L = self.beam.length
        if np.iscomplexobj(L):          # the mode values take a real abscissa
            raise TypeError("the length of an assumed-mode beam is not carried by a "
                            "complex step")
        xi = np.clip(np.asarray(s, dtype=float) / L, 0.0, 1.0)
        full = np.zeros((len(xi), 3, self.N))
        rot = np.zeros((len(xi), 3, self.N))
        full[:, 1] = self._modes.values(xi)
        rot[:, 2] = self._modes.values(xi, 1) / L
        return full, rot

    def _place(self, k: int, rows: np.ndarray) -> np.ndarray:
        """Element rows (..., 2 nd) of element k -> beam rows (..., N), node 0 clamped."""
        out = np.zeros(rows.shape[:-1] + (self.nd * (self.n + 1),),
                       np.result_type(rows, float))
        out[..., self.nd * k:self.nd * (k + 2)] = rows
        return out[..., self.nd:]

    def _element_rows(self, k: int, xi: np.ndarray):
        """Phi_d (len(xi), 3, N) and Phi_r (len(xi), 3, N) inside element k."""
        le = self.beam.length / self.n
        el = self.element
        m = len(xi)
        dt = np.result_type(xi, le, float)    # complex for a complex-step length
        full = np.zeros((m, 3, 2 * self.nd), dt)
        rot = np.zeros((m, 3, 2 * self.nd), dt)
        full[:, 0] = el.shape("u", xi, le)
        full[:, 1] = el.shape("v", xi, le)
        rot[:, 2] = el.shape("v", xi, le, deriv=1)
        if self.spatial:
            full[:, 2] = el.shape("w", xi, le)
            rot[:, 0] = el.shape("phi", xi, le)
            rot[:, 1] = -el.shape("w", xi, le, deriv=1)
        return self._place(k, full), self._place(k, rot)

    def at(self, s: float):
        """Phi_d (3, N) and Phi_r (3, N) at abscissa s in [0, L] [m]."""
        L = self.beam.length
        Lr = np.real(L)                   # the element of s: by the real parts
        if not -1e-12 <= np.real(s) <= Lr * (1 + 1e-12):
            raise InputError("attachment abscissa", s, f"0 .. {Lr} m on the beam")
        if self.modal:
            d, r = self._modal_rows(np.array([s]))
            return d[0], r[0]
        le = L / self.n
        k = min(int(np.real(s) / (Lr / self.n)), self.n - 1)
        d, r = self._element_rows(k, np.array([(s - k * le) / le]))
        return d[0], r[0]

    @cached_property
    def mass_per_length(self):
        """mu(xi) [kg/m], xi = s / L in [0, 1]: rho A, or the quadratic density with the
        beam's given mass, centre of mass and inertia (``mass_properties``; the same
        decision and function as the ffrf bodies, :func:`~elastodyn.fem.ffrf.
        fitted_mass_per_length`: both formulations then model the same beam). 5 Gauss
        points per element stay exact: the integrands gain degree 2."""
        b = self.beam
        if b.mass_properties is None:
            rA = b.material.rho * b.section.area
            return lambda xi: np.full(np.shape(xi), rA)
        from ...fem.ffrf import fitted_mass_per_length   # given mass properties only
        return fitted_mass_per_length(b.length, *b.mass_properties)

    @cached_property
    def integrals(self) -> dict:
        """m, MS0 (3,), J0 (3, 3), MSde (3, N), e (3, 3, N), Q (3, 3, N, N), Kee (N, N),
        and the torsion inertia Ip, MSphi (N,), Mphi (N, N) (zero for a planar beam)."""
        b = self.beam
        rA = b.material.rho * b.section.area
        mu = self.mass_per_length
        le = b.length / self.n
        x, w = gauss_legendre_01(_N_GAUSS)
        N = self.N
        rIp = b.material.rho * b.section.ip if self.spatial else 0.0
        # complex for a complex-step entry (frequency_sensitivity), else float
        dt = np.result_type(rA, rIp, b.mass, mu(np.array([0.5])), b.length, float)
        out = {"m": b.mass, "MS0": np.zeros(3, dt), "J0": np.zeros((3, 3), dt),
               "MSde": np.zeros((3, N), dt), "e": np.zeros((3, 3, N), dt),
               "Q": np.zeros((3, 3, N, N), dt), "Ip": rIp * b.mass / rA,
               "MSphi": np.zeros(N, dt), "Mphi": np.zeros((N, N), dt)}
        if self.modal:                  # one "element": the whole beam, finer quadrature
            t, wq = np.polynomial.legendre.leggauss(6 * self.N + 40)
            x, w, le, nel = 0.5 * (t + 1.0), 0.5 * wq, b.length, 1
        else:
            nel = self.n
        for k in range(nel):
            Phi, Rot = (self._modal_rows(x * b.length) if self.modal
                        else self._element_rows(k, x))
            s = (k + x) * le
            dens = mu(s / b.length)                  # (G,) kg/m
            if self.spatial:
                Np = Rot[:, 0, :]
                wp = rIp * le * w * dens / rA        # rho I_p scaled with the density
                out["MSphi"] += wp @ Np
                out["Mphi"] += np.einsum("g,gn,gm->nm", wp, Np, Np)
            r0 = np.zeros((len(x), 3), np.result_type(s, float))
            r0[:, 0] = s
            wk = dens * le * w
            out["MS0"] += wk @ r0
            out["J0"] += np.einsum("g,ga,gb->ab", wk, r0, r0)
            out["MSde"] += np.einsum("g,gan->an", wk, Phi)
            out["e"] += np.einsum("g,gan,gb->abn", wk, Phi, r0)
            out["Q"] += np.einsum("g,gan,gbm->abnm", wk, Phi, Phi)
        out["Kee"] = self.stiffness
        return out

    @cached_property
    def membrane(self):
        """Element membrane operators of the von Karman axial strain, one tuple per
        element k: (EA l_e, a_k (N,), G_k (N, N)) with

            u'_k = a_k . q_e                  (the element's axial strain, u linear),
            h_k = q_e^T G_k q_e / 2,  G_k = 1/l_e int_k (N_v'^T N_v' + N_w'^T N_w') ds,

        h_k the element mean of (v'^2 + w'^2)/2 (w' = 0 for a planar beam); the element's
        membrane strain is eps_k = u'_k + h_k (:func:`~elastodyn.formulations.nepvp.
        _stiffening`). 5 Gauss points integrate G_k (degree 4 in s) exactly."""
        b = self.beam
        le = b.length / self.n
        x, w = gauss_legendre_01(_N_GAUSS)
        EA = b.material.E * b.section.area
        el = self.element
        fields = ("v", "w") if self.spatial else ("v",)
        out = []
        for k in range(self.n):
            a = w @ self._place(k, el.shape("u", x, le, deriv=1))
            G = np.zeros((self.N, self.N), np.result_type(le, float))
            for f in fields:
                S = self._place(k, el.shape(f, x, le, deriv=1))      # (G, N)
                G += np.einsum("g,gn,gm->nm", w, S, S)
            out.append((EA * le, a, G))
        return out

    @cached_property
    def stiffness(self) -> np.ndarray:
        """K_ee (N, N) [N/m, N, N m]: assembled element stiffness, node 0 clamped
        (assumed modes: E I / L^3 int phi'' phi''^T dxi)."""
        b = self.beam
        if self.modal:
            return b.material.E * b.section.iz / b.length ** 3 * \
                self._modes.integrals["kappa"]
        le = b.length / self.n
        Ke = stiffness_matrix(self.element, le, b.section, b.material)
        nd = self.nd
        K = np.zeros((nd * (self.n + 1),) * 2, np.result_type(Ke, float))
        for k in range(self.n):
            K[nd * k:nd * (k + 2), nd * k:nd * (k + 2)] += Ke
        return K[nd:, nd:]
