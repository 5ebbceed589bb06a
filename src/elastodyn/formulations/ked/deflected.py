"""The KED Delta about its deflected equilibrium (the ``reference="deflected"`` option of
:class:`elastodyn.formulations.ked.engine.KEDEngine`).

Why
---
Kuo's KED superposes small elastic displacements on the rigid motion and linearizes about
the *undeformed* links. A light Delta sags: Kuo's robot (5 mm steel links) by 26 mm
under gravity. The sideways frequencies of a Delta depend on the pose at first order
(the lower links' inclination), so linearizing about the undeformed pose makes an error
of first order in the sag (4 % on the two sideways modes of that robot: the preload of
the undeformed model raises them while the sag lowers them in reality), and the
undamped vibration of a long run drifts out of phase.

What
----
The reference configuration is the *geometrically exact quasi-static deflection* under
the loads of the rigid motion (gravity and d'Alembert forces), and the elastic equations
are linearized about it. With the global variables delta of the KED model (platform
displacement and rotation, upper-link nodal dofs in the upper link's rigid frame, lower
interior nodes in the lower link's rigid frame, joint-release angles) the configuration
of every node is written *exactly* (finite rotations):

* upper node j: x = A + R_u (s_j e_x + d_j), triad R_u exp([r_j]) (node 0 clamped);
* lower interior node j: x = B + R_l (s_j e_x + d_j), triad R_l exp([r_j]);
* lower end at B: x = the upper tip, triad Q_tip E(a_1, y_i) E(a_2, z_l) R_l with
  Q_tip = R_u exp([r_tip]) R_u^T (universal joint: first axis y_i fixed to the upper
  link, second z_l fixed to the lower link; clamped: no release);
* lower end at D: x = X + d_P + Q_P (D - X), triad Q_P E(b_2, y_i) E(b_1, z_l) R_l with
  Q_P = exp([r_P]) (first axis fixed to the platform); a spherical joint (at B or D)
  rotates by exp([R_l a]) with a the three release angles about the lower link's axes;
* E(a, n) = exp(a [n]x). To first order these are the KED's S maps (Kuo eq. 47
  linearized; :mod:`elastodyn.formulations.ked.engine`).

The total potential is V(delta) = sum of the corotational elements' strain energies and
load potentials (:class:`elastodyn.fem.corotational.CorotationalBeam`: dead body forces
b(s) = g - a(s) of the rigid motion on the link axes) plus the platform's
-m (g - X_ddot) . (X + d_P + Q_P c). The reference delta_s solves grad V = 0 (Newton on
the exact Hessian: second-order jets, :mod:`elastodyn.fem.jets`, through the node maps
below and the elements; complex-safe, so that a description entry carried by a complex
step, :mod:`elastodyn.analysis.frequency_sensitivity`, passes through delta_s, K_T and
M); at it::

    M = sum J_e^T M_e J_e + M_P      (mass about the deflected links),
    K_T = Hessian of V                (elastic + geometric stiffness of every internal
                                       force and the load stiffness, all exact),

and along a motion the linear time-varying system of the KED model becomes

    M delta'' + C delta' + (K_T + K_mot) delta = K_T delta_s(t),

with C and K_mot = sum S^T (M_e S'' + 2 B_e S' + (B(al) - M_s(w)) S) the KED's gyroscopic,
damping and rigid-motion stiffness terms (evaluated at the rigid links) and delta_s(t)
the reference along the motion: f_int(delta) ~ f_int(delta_s) + K_T (delta - delta_s)
with f_int(delta_s) = F(t).

Order of the terms kept
-----------------------
Let eps be the static deflection over the link length (Kuo's Delta: about 0.03). The
undeformed KED is exact to O(1) in the elastic stiffness and makes O(eps) errors in the
frequencies (geometry of the closed chain, the load's direction on the deflected links).
Here the stiffness and the mass are exact at the deflected configuration (up to the
mesh: O(h^2) from the corotational local rotations), so the frequencies are exact to
first order in the *vibration amplitude about the reference*; the terms neglected are
(i) the change of C and K_mot (products of the rigid-motion rates with the elastic
displacements) by the deflection: O(eps Omega_motion / omega) relative, and (ii) the
geometric nonlinearity of the vibration about the reference itself, O(a/L) with a its
amplitude. Rotary d'Alembert terms of the links' torsion (rho I_p al_x, O(1e-5) of the
links' d'Alembert loads) are left out of the reference. Limits: the undeformed model is
recovered as g and the motion's loads go to zero (tested); cubic elements only, locked
actuators and a structure without mechanisms (a static equilibrium must exist).

Units: SI, rad.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validate import real_array
from ...exceptions import InputError, ModelError
from ...fem import jets
from ...fem.corotational import (CorotationalBeam, axis_rotation, potential_derivatives,
                                potential_gradient, so3_exp, spin_jacobian)

__all__ = ["DeflectedReference", "DeflectedState", "NEWTON_TOL", "IMAG_RTOL"]

IMAG_RTOL = 1e-10
"""Under a complex step: Newton also waits until the imaginary update of delta is below
this fraction of |Im delta| (:meth:`DeflectedReference.solve`)."""

NEWTON_TOL = 1e-9
"""Newton converged when the largest update of delta is below this [m, rad] (then
delta is within ~tol^2 / (solution scale) of the solution, below round-off: quadratic
convergence)."""
_EX = np.array([1.0, 0.0, 0.0])


@dataclass(frozen=True, eq=False)
class DeflectedState:
    """The reference at ns samples.

    delta : (ns, N) the quasi-static deflection delta_s [m, rad];
    K, M : (ns, 3, nb, nb) the tangent stiffness and the mass in the model's leg blocks
    (:attr:`KEDEngine.leg_blocks`; the platform's terms in leg 0's block);
    iterations : Newton iterations used (largest over the samples).
    blocks : (3, nb) the global index of every block row;
    D : (ns, 3, nb, nb) or None, the material stiffness about the reference (leg
    blocks): sum J_e^T K_e J_e with J_e the Jacobian of element e's corotational local
    deformations (:meth:`~elastodyn.fem.corotational.CorotationalBeam.local_dofs`) with
    respect to delta. Symmetric positive semi-definite by construction and zero on every
    rigid motion of the deflected structure: the stiffness that stiffness-proportional
    (Rayleigh) damping acts through (:meth:`DeflectedReference.solve` computes it when
    asked);
    F : (ns, 3, nb) the right-hand side K_T delta_s in leg blocks (block i: K_i times
    delta at the block's variables), property.
    """

    delta: np.ndarray
    K: np.ndarray
    M: np.ndarray
    iterations: int
    blocks: np.ndarray
    D: np.ndarray | None = None

    @property
    def F(self) -> np.ndarray:
        return np.einsum("sinm,sim->sin", self.K, self.delta[:, self.blocks])


def _ex(a, z):
    """Data a (ns, 3, ...) (per sample and leg) expanded to broadcast with variables z
    (ns, 3, ..., nv): one unit axis per extra leading axis of z."""
    a = np.asarray(a)
    return a.reshape(a.shape[:2] + (1,) * (z.ndim - 3) + a.shape[2:])


class DeflectedReference:
    """Deflected reference of a KED Delta model (module docstring).

    Parameters
    ----------
    model : KEDEngine
        Cubic elements, locked actuators, no mechanism (checked by the model).
    """

    def __init__(self, model):
        self.model = m = model
        n = m.n_elements
        g = m.robot.geometry
        (su, sl), (mu, ml) = m.robot.link_sections, m.robot.link_materials
        self.L = (g.upper_length, g.lower_length)
        self.beams = (CorotationalBeam.of(self.L[0] / n, su, mu),
                      CorotationalBeam.of(self.L[1] / n, sl, ml))
        self.blocks = m.leg_blocks
        self.nb = self.blocks.shape[1]
        pos = np.empty((3, m.dof), dtype=int)
        pos.fill(-1)
        for i in range(3):
            pos[i, self.blocks[i]] = np.arange(self.nb)
        self._pos = pos
        self._elements = self._layout()

    # ------------------------------------------------------------------ layout
    def _layout(self):
        """Per element: (link, k, node kinds, variable index arrays (3, nv))."""
        m = self.model
        n = m.n_elements
        out = []
        ch = m.chains

        def upper(j):
            if j == 0:
                return ("root", j), np.zeros((3, 0), dtype=int)
            ix = [np.asarray(c["upper_global"])[np.searchsorted(c["upper_local"],
                                                                 6 * j + np.arange(6))]
                  for c in ch]
            return ("upper", j), np.array(ix)

        def lower(j):
            if j == 0:
                return ("B", j), np.array([np.r_[c["tip_global"], c["rel_b"]] for c in ch])
            if j == n:
                return ("D", j), np.array([np.r_[np.arange(6), c["rel_d"]] for c in ch])
            ix = [np.asarray(c["lower_global"])[np.searchsorted(c["lower_local"],
                                                                 6 * j + np.arange(6))]
                  for c in ch]
            return ("lower", j), np.array(ix)

        for li, node in ((0, upper), (1, lower)):
            for k in range(n):
                (ka, ia), (kb, ib) = node(k), node(k + 1)
                out.append((li, k, ka, kb, ia.shape[1], np.concatenate([ia, ib], axis=1)))
        return out

    # ------------------------------------------------------------------ configuration
    def _node(self, kind, z, d):
        """Displacement from the rigid position (..., 3) and triad (..., 3, 3) of a node
        from its variables z."""
        what, j = kind
        d = {k: _ex(v, z) for k, v in d.items()}
        if what == "root":
            shape = z.shape[:-1]
            return (np.zeros(shape + (3,)), np.broadcast_to(d["Ru"], shape + (3, 3)))
        if what in ("upper", "lower"):
            R = d["Ru"] if what == "upper" else d["Rl"]
            return np.einsum("...ij,...j->...i", R, z[..., 0:3]), R @ so3_exp(z[..., 3:6])
        if what == "B":
            u = np.einsum("...ij,...j->...i", d["Ru"], z[..., 0:3])
            Q = so3_exp(np.einsum("...ij,...j->...i", d["Ru"], z[..., 3:6]))  # Ru e^r Ru^T
            rel = self._release(self.model.joint_b, z[..., 6:], d, "B")
            return u, Q @ rel @ d["Rl"]
        Q = so3_exp(z[..., 3:6])
        r = d["D"] - d["X"]
        u = z[..., 0:3] + np.einsum("...ij,...j->...i", Q, r) - r
        rel = self._release(self.model.joint_d, z[..., 6:], d, "D")
        return u, Q @ rel @ d["Rl"]

    @staticmethod
    def _release(joint, a, d, at):
        """Relative rotation of a joint: universal E(a1, y) E(a2, z_l) at B (y fixed to
        the upper link), E(b2, y) E(b1, z_l) at D (release 1 about z_l, 2 about y, as
        the KED's variables); spherical exp([R_l a]) (the rotation vector a in the lower
        link's axes, the KED's three releases); clamped: identity."""
        if joint == "clamped":
            return np.eye(3)
        if joint == "spherical":
            return so3_exp(np.einsum("...ij,...j->...i", d["Rl"], a))
        y, zl = d["y"], d["Rl"][..., :, 2]
        if at == "B":
            return axis_rotation(a[..., 0], y) @ axis_rotation(a[..., 1], zl)
        return axis_rotation(a[..., 1], y) @ axis_rotation(a[..., 0], zl)

    def _data(self, mo, ks):
        """Rigid-motion data per (sample, leg), expanded for potential_derivatives."""
        ns = len(ks)
        d = {"A": np.broadcast_to(mo.A, (ns, 3, 3)), "Ru": mo.Ru[ks], "Rl": mo.Rl[ks],
             "B": mo.B[ks], "D": mo.D[ks], "X": np.broadcast_to(mo.X[ks][:, None], (ns, 3, 3)),
             "y": np.broadcast_to(mo.y, (ns, 3, 3))}
        return d

    def _loads(self, mo, ks):
        """Body force per unit mass b(s) = b0 + s b1 of each link (ns, 3, 3) x 2 [m/s^2,
        1/s^2]: gravity minus the rigid acceleration of the axis point at s."""
        grav = real_array(self.model.robot.gravity)
        out = []
        for R, w, al, a0 in ((mo.Ru[ks], mo.wu[ks], mo.au[ks], 0.0),
                             (mo.Rl[ks], mo.wl[ks], mo.al[ks], mo.Bdd[ks])):
            x = R[..., :, 0]
            b1 = -(np.cross(al, x) + np.cross(w, np.cross(w, x)))
            out.append((grav - a0 + np.zeros_like(b1), b1))
        return out

    # ------------------------------------------------------------------ potential
    def _element_terms(self, mo, ks, delta, mass=False, hessian=True, material=False):
        """Gradient (ns, 3, nb) and Hessian (ns, 3, nb, nb) (None without ``hessian``) of
        the links' potential in leg blocks at delta (ns, N); with ``mass`` also the links'
        mass, with ``material`` also their material stiffness (leg blocks; else None)."""
        ns = len(ks)
        d = self._data(mo, ks)
        loads = self._loads(mo, ks)
        # complex when a description entry or delta carries a complex step
        dt = np.result_type(delta, d["Ru"], d["Rl"], d["D"], d["X"], loads[0][0],
                            loads[1][0], *(b.rho_a for b in self.beams),
                            *(b.stiffness for b in self.beams), *(b.mass for b in self.beams),
                            *self.L, float)
        G = np.zeros((ns, 3, self.nb), dtype=dt)
        H = np.zeros((ns, 3, self.nb, self.nb), dtype=dt) if hessian else None
        Mm = np.zeros((ns, 3, self.nb, self.nb), dtype=dt) if mass else None
        Dm = np.zeros((ns, 3, self.nb, self.nb), dtype=dt) if material else None
        n = self.model.n_elements
        for li, k, ka, kb, na, ix in self._elements:
            beam = self.beams[li]
            b0, b1 = loads[li]
            s0 = k * self.L[li] / n
            b0e, b1e = b0 + s0 * b1, b1
            chord = self.L[li] / n * (mo.Ru if li == 0 else mo.Rl)[ks][..., :, 0]  # (ns, 3, 3)

            def config(z, ka=ka, kb=kb, na=na):
                ua, ta = self._node(ka, z[..., :na], d)
                ub, tb = self._node(kb, z[..., na:], d)
                return ua, ta, ub, tb

            def f(z, beam=beam, b0e=b0e, b1e=b1e, config=config, chord=chord):
                ua, ta, ub, tb = config(z)
                c0 = _ex(chord, z)
                return beam.potential(ua, ta, ub, tb, c0, _ex(b0e, z), _ex(b1e, z))

            z0 = delta[:, ix]                                          # (ns, 3, nv)
            if hessian:
                _, g, h = potential_derivatives(f, z0)
            else:
                g = potential_gradient(f, z0)
            p = self._pos[np.arange(3)[:, None], ix]                   # (3, nv)
            for i in range(3):
                G[:, i][:, p[i]] += g[:, i]
                if hessian:
                    H[:, i][:, p[i][:, None], p[i][None, :]] += h[:, i]
            if mass:
                J = spin_jacobian(lambda z, config=config: self._pair(config, z), z0)
                J = J.reshape(J.shape[:2] + (12, J.shape[-1]))          # (ns, 3, 12, nv)
                ua, ta, ub, tb = config(z0)
                Me = np.swapaxes(J, -1, -2) @ beam.world_mass(ua, ta, ub, tb, chord) @ J
                for i in range(3):
                    Mm[:, i][:, p[i][:, None], p[i][None, :]] += Me[:, i]
            if material:
                # J_d: Jacobian of the local deformations (theta_a, u, theta_b) (7 of the
                # 12 local dofs; the others are zero by the frame's definition), exact by
                # first-order jets; D_e = J_d^T K_7 J_d >= 0, zero on rigid motions
                z = jets.variables(z0, order=1)
                _, du, tha, thb = beam.frame(*config(z), _ex(chord, z))
                d7 = jets.concatenate([tha, du[..., None], thb], axis=-1)
                Jd = jets.gradient(d7, z.nv)                           # (ns, 3, 7, nv)
                De = np.swapaxes(Jd, -1, -2) @ beam.local_stiffness_7 @ Jd
                for i in range(3):
                    Dm[:, i][:, p[i][:, None], p[i][None, :]] += De[:, i]
        return G, H, Mm, Dm

    @staticmethod
    def _pair(config, z):
        """The two element ends as (x (..., 2, 3), triads (..., 2, 3, 3))."""
        xa, ta, xb, tb = config(z)
        return np.stack([xa, xb], -2), np.stack([ta, tb], -3)

    def _platform_terms(self, mo, ks, delta, hessian=True):
        """Gradient (ns, 6) and Hessian (ns, 6, 6) (None without ``hessian``) of the
        platform's potential."""
        body = self.model.carried_body
        grav = real_array(self.model.robot.gravity)
        a = grav - mo.Xdd[ks]
        c = body.com_offset

        def f(z):
            return -body.mass * np.einsum("...i,...i->...", a[(slice(None),) + (None,) * (z.ndim - 2)], z[..., 0:3]
                                          + np.einsum("...ij,j->...i", so3_exp(z[..., 3:6]), c))

        if not hessian:
            return potential_gradient(f, delta[:, 0:6]), None
        _, g, h = potential_derivatives(f, delta[:, 0:6])
        return g, h

    def gradient(self, mo, ks, delta) -> np.ndarray:
        """grad V (ns, 3, nb) in leg blocks at delta (ns, N) under the loads of the rigid
        motion ``mo`` at samples ``ks`` (zero at the reference of those loads)."""
        delta = np.asarray(delta)
        G, _, _, _ = self._element_terms(mo, np.asarray(ks), delta, hessian=False)
        G[:, 0, self.nb - 6:] += self._platform_terms(mo, np.asarray(ks), delta,
                                                      hessian=False)[0]
        return G

    # ------------------------------------------------------------------ solve
    def solve(self, mo, ks=None, delta0=None, *, tol: float = NEWTON_TOL,
              max_iter: int = 30, material: bool | None = None) -> DeflectedState:
        """The reference at samples ``ks`` (default all) of the rigid motion ``mo``:
        Newton on grad V = 0 from delta0 (ns, N) (default zero), all samples at once;
        with ``material`` (default: when the model has stiffness-proportional damping)
        also the material stiffness :attr:`DeflectedState.D`.

        Raises
        ------
        ModelError
            No convergence (the structure buckles or the loads exceed what the
            quasi-static deflection can carry).
        """
        m = self.model
        if int(max_iter) < 1:
            raise InputError("max_iter", max_iter, "an integer >= 1")
        ks = np.arange(len(mo)) if ks is None else np.asarray(ks)
        ns = len(ks)
        delta = np.zeros((ns, m.dof)) if delta0 is None else np.array(delta0)
        if delta.shape != (ns, m.dof) or not np.all(np.isfinite(delta)):
            raise InputError("delta0", f"shape {delta.shape}", f"finite values of shape "
                             f"({ns}, {m.dof})")
        pl = self.nb - 6

        def terms(act):
            G, H, _, _ = self._element_terms(mo, ks[act], delta[act])
            gp, hp = self._platform_terms(mo, ks[act], delta[act])
            G[:, 0, pl:] += gp
            H[:, 0, pl:, pl:] += hp
            return G, H

        # Newton on the exact gradient and Hessian, per sample, until its update is below
        # ``tol``; a converged sample leaves the batch (the samples are independent, and
        # the Hessians, second-order jets of every element, are the cost). The
        # Hessian returned is that of each sample's last iterate, within ``tol`` of the
        # solution (its error ~ tol V^(3), negligible), and delta after the last step is
        # at round-off from it (quadratic convergence).
        # Complex data (an outer complex step p + i h on a description entry): Newton in
        # complex arithmetic converges to the analytic continuation delta_s(p + i h), whose
        # imaginary part is h d delta_s / dp. Its error after a step is of the order of the
        # real part's error before it times |Im delta| (differentiate the Newton map), so
        # it converges with the real part, but a sample also waits until its imaginary
        # update is below IMAG_RTOL of its |Im delta|: the Hessian kept (evaluated before
        # that last step) then carries dK/dp to that relative accuracy.
        H = None
        active = np.arange(ns)
        size = np.inf
        for it in range(1, max_iter + 1):
            G, Ha = terms(active)
            if H is None or not np.can_cast(Ha.dtype, H.dtype):
                H0 = H
                H = np.empty((ns, 3, self.nb, self.nb), dtype=Ha.dtype)
                if H0 is not None:
                    H[:] = H0
            H[active] = Ha
            if np.iscomplexobj(G) and not np.iscomplexobj(delta):
                delta = delta.astype(G.dtype)
            try:
                step = m.leg_solver.solve(H[active], -G)
            except np.linalg.LinAlgError:
                step = np.full((len(active), m.dof), np.nan)
            if not np.all(np.isfinite(step)):
                raise ModelError("deflected reference: singular tangent stiffness "
                                 "(the structure buckles under the loads)")
            delta[active] += step
            sizes = np.max(np.abs(step.real), axis=1)
            size = float(np.max(sizes))
            done = sizes < tol
            if np.iscomplexobj(step):
                im = np.max(np.abs(step.imag), axis=1)
                done &= im <= IMAG_RTOL * np.max(np.abs(delta[active].imag), axis=1)
            active = active[~done]
            if not active.size:
                break
        else:
            raise ModelError(f"deflected reference: Newton did not converge in {max_iter} "
                             f"iterations (last update {size:.3g})")
        if material is None:
            material = m.rayleigh[1] != 0
        _, _, Mm, Dm = self._element_terms(mo, ks, delta, mass=True, hessian=False,
                                           material=material)
        Mm[:, 0, pl:, pl:] += m.platform_mass_matrix
        return DeflectedState(delta, H, Mm, it, self.blocks, Dm)
