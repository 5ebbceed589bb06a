"""Fast, batched evaluation of the KED system of :mod:`elastodyn.formulations.ked.engine`.

Same equations as :meth:`KEDEngine.system` (the reference path, one sample at a time;
the tests check both give the same matrices), organised for speed along a trajectory:

* every time-varying link matrix is a linear combination of constant link matrices with
  coefficients from the rigid motion: K_l = K_e + sum_9 c_ab Q_ab + N0 G0 + N1 G1 + N2 G2
  with c = [al]x - (|w|^2 I - w w^T), the gyroscopic B_l = sum [w]x_ab Q_ab, the load
  P_l = (g - a0) I0 + c1 I1 - al_x Iphi (the coefficient functions and constant matrices
  of :mod:`elastodyn.fem.moving_frame`, shared with the reference path; the link
  matrices kept in block order by :meth:`LinkMatrices.restricted`); one matrix product
  per chunk of samples gives them all;
* S of a lower link is the identity on its own dofs and 12 rows T_j (the first six dofs
  of its two end nodes) on the shared variables (upper tip, releases, platform), so
  S^T A S_j needs only the blocks A_oo, A_or, A_ro, A_rr (o: own rows, r: end rows);
* samples are processed in chunks (numpy batched products, a few dozen calls per chunk);
* the system is kept in *leg blocks*: leg i touches only its own variables and the six
  platform variables, so the global matrix is sum_i P_i^T G_i P_i with G_i of size
  nb = m + 6 (m: the leg's own variables, ordered [lower own | upper own, tip last |
  releases at B | releases at D], then the platform). The blocks are assembled with
  slices (no scatter into an N x N array), and solved as an arrow matrix: LU (banded
  from 7 elements per link) of the three m x m leg parts (reordered once by their
  structural pattern), then a 6 x 6 Schur complement on the platform
  (:meth:`KEDBatch.solve`, :class:`~elastodyn.formulations.ked_blocks.LegBlockSolver`).
"""
from __future__ import annotations

import numpy as np

from ...fem.moving_frame import gyroscopic_coefficients, skew, stiffness_coefficients
from .blocks import dense_leg_blocks
from .engine import DeltaMotion, KEDEngine

__all__ = ["KEDBatch", "rest_matrices"]


class KEDBatch:
    """The KED system of ``model`` at every sample of a rigid motion, in chunks.

    Parameters
    ----------
    model : KEDEngine
    motion : DeltaMotion (ns samples)
    end_force : ndarray (ns, 3, 2) or None
        Axial end forces of the links [N]; None computes them exactly at every sample
        (one quasi-static solve per sample, batched).
    reference : object or None
        For ``reference="deflected"`` models: ``reference.at(k0, k1)`` returns the
        deflected reference (F = K_T delta_s (c, 3, nb), K_T, M and the material
        stiffness D (c, 3, nb, nb), or None without stiffness-proportional damping, leg
        blocks) at samples k0..k1-1 (:mod:`elastodyn.formulations.ked.deflected`); the
        dynamic blocks are then M, C, K = K_T + K_mot and F. Required by such models.
    """

    def __init__(self, model: KEDEngine, motion: DeltaMotion, end_force=None,
                 reference=None):
        self.model, self.mo = model, motion
        self.reference = reference
        self.ns = len(motion)
        self.N = model.dof
        grav = np.asarray(model.robot.gravity, dtype=float)
        mo = motion
        self.links = []
        for i, c in enumerate(model.chains):
            for li, lm in enumerate(model.links):
                R = mo.Ru[:, i] if li == 0 else mo.Rl[:, i]
                RT = np.swapaxes(R, -1, -2)
                w = np.einsum("nij,nj->ni", RT, mo.wu[:, i] if li == 0 else mo.wl[:, i])
                al = np.einsum("nij,nj->ni", RT, mo.au[:, i] if li == 0 else mo.al[:, i])
                a0 = (np.zeros_like(w) if li == 0
                      else np.einsum("nij,nj->ni", RT, mo.Bdd[:, i]))
                g = np.einsum("nij,j->ni", RT, grav)
                entry = {"i": i, "li": li, "lm": lm, "w": w, "al": al, "a0": a0, "g": g,
                         "F": model.link_load(li, w, al, a0, g),
                         "cg": gyroscopic_coefficients(w),
                         "ck": stiffness_coefficients(w, al)}
                nd, n = lm.nd, model.n_elements
                if li == 0:
                    entry["loc"] = c["upper_local"]
                    entry["cols"] = c["upper_global"]
                    # block order: the upper link's own dofs with the tip (node n, first
                    # six dofs) last, so that the lower link's shared variables (tip,
                    # releases, platform) are contiguous at the end of the block
                    tip = np.isin(c["upper_local"], n * nd + np.arange(6))
                    entry["perm"] = np.r_[c["upper_local"][~tip], c["upper_local"][tip]]
                else:
                    r = np.r_[0:6, n * nd:n * nd + 6]
                    entry["o"], entry["r"] = c["lower_local"], r
                    entry["own_cols"] = c["lower_global"]
                    entry["ext_cols"] = c["lower_cols"][len(c["lower_local"]):]
                    entry["T"] = self._T(i)
                    # lower dofs in block order [own, end rows]; S columns in block order
                    # [tip, rel_b, rel_d, platform] (from [tip, rel_b, platform, rel_d])
                    entry["perm"] = np.r_[c["lower_local"], r]
                    kb, kd = len(c["rel_b"]), len(c["rel_d"])
                    tcols = np.r_[0:6 + kb, 12 + kb:12 + kb + kd, 6 + kb:12 + kb]
                    entry["Tb"] = [T[:, :, tcols] for T in entry["T"]]
                entry["lmb"] = lm.restricted(entry["perm"])  # link matrices in block order
                self.links.append(entry)
            self.no, self.nu = len(c["lower_local"]), len(c["upper_local"])
        self.blocks = model.leg_blocks
        self.nb = self.blocks.shape[1]
        self.end_force = self.quasi_static()[1] if end_force is None else np.asarray(end_force)

    # ------------------------------------------------------------------ S blocks
    def _T(self, i):
        """T_j, j = 0, 1, 2: (ns, 12, next) rows of S (and derivatives) at the lower
        link's end dofs, batched version of KEDEngine._lower_S."""
        m, mo = self.model, self.mo
        c = m.chains[i]
        kb, kd = len(c["rel_b"]), len(c["rel_d"])
        ns = self.ns
        Rl, Ru = mo.Rl[:, i], mo.Ru[:, i]
        RlT = np.swapaxes(Rl, -1, -2)
        Wl, Al = skew(mo.wl[:, i]), skew(mo.al[:, i])
        Wr = skew(mo.wu[:, i] - mo.wl[:, i])
        P0 = [RlT, -RlT @ Wl, RlT @ (Wl @ Wl - Al)]
        P1 = [RlT @ Ru, RlT @ Wr @ Ru,
              RlT @ (-Wl @ Wr + skew(mo.au[:, i] - mo.al[:, i]) + Wr @ skew(mo.wu[:, i])) @ Ru]
        rx = skew(mo.D[:, i] - mo.X)
        y = mo.y[i]
        nxt = 12 + kb + kd
        cR, cP, cD = 6, 6 + kb, 12 + kb

        def axis_cols(joint, at, j):
            if joint == "clamped":
                return np.zeros((ns, 3, 0))
            if joint == "spherical":
                return np.broadcast_to(np.eye(3) * (j == 0), (ns, 3, 3))
            ez = np.broadcast_to(np.array([0.0, 0.0, 1.0]) * (j == 0), (ns, 3))
            yl = P0[j] @ y
            cols = [yl, ez] if at == "B" else [ez, yl]
            return np.stack(cols, axis=-1)

        out = []
        for j in range(3):
            T = np.zeros((ns, 12, nxt))
            T[:, 0:3, 0:3] = P1[j]
            T[:, 3:6, 3:6] = P1[j]
            if kb:
                T[:, 3:6, cR:cR + kb] = axis_cols(m.joint_b, "B", j)
            T[:, 6:9, cP:cP + 3] = P0[j]
            T[:, 6:9, cP + 3:cP + 6] = -P0[j] @ rx
            T[:, 9:12, cP + 3:cP + 6] = P0[j]
            if kd:
                T[:, 9:12, cD:cD + kd] = axis_cols(m.joint_d, "D", j)
            out.append(T)
        return out

    # ------------------------------------------------------------------ link matrices
    def _link_K(self, e, sl, end):
        """K_l = K_e + B(al) - M_s(w) + K_g (c, nl, nl) in block order for samples sl with
        end forces end (c,) (fem.moving_frame, coefficients computed once per link)."""
        lmb = e["lmb"]
        if self.model.reference == "deflected":  # K_T carries the elastic terms
            return lmb.combine(e["ck"][sl])
        K = lmb.combine(e["ck"][sl]) + lmb.Ke
        if self.model.preload:
            K = K + lmb.geometric(lmb.axial_force(e["w"][sl], e["a0"][sl], e["g"][sl], end))
        return K

    def _link_B(self, e, sl):
        """Gyroscopic B_l (c, nl, nl) in block order."""
        return e["lmb"].combine(e["cg"][sl])

    def _add_lower(self, G, i, terms, T0):
        """G[:, i] += S_0^T (sum scale A S_j) for the lower link of leg i.

        terms: (A (c, nl, nl) or (nl, nl) in block order, T_j (c, 12, next), scale,
        own) with own True when S_j carries the identity on the own rows (j = 0)."""
        no, e0 = self.no, self.no + self.nu - 6
        Tt = np.swapaxes(T0, -1, -2)
        rr = sum(s * (A[..., no:, no:] @ Tj) for A, Tj, s, _ in terms)
        G[:, i, e0:, e0:] += Tt @ rr
        if no:
            G[:, i, :no, e0:] += sum(s * (A[..., :no, no:] @ Tj) for A, Tj, s, _ in terms)
            own = [(A, s) for A, _, s, o in terms if o]
            if own:
                G[:, i, :no, :no] += sum(s * A[..., :no, :no] for A, s in own)
                G[:, i, e0:, :no] += Tt @ sum(s * A[..., no:, :no] for A, s in own)

    # ------------------------------------------------------------------ assembly
    def chunk_blocks(self, k0: int, k1: int, *, dynamic: bool = True, elastic: bool = True,
                     end=None):
        """Leg blocks for samples k0..k1-1 (module docstring): M, C, K, K_el
        (c, 3, nb, nb) (None when not requested: M, C, K without ``dynamic``, K_el
        without ``elastic`` unless Rayleigh damping needs it) and F (c, 3, nb) (the
        platform load counted in leg 0's block). Global vectors map to blocks by
        ``x[..., self.blocks]``."""
        sl, c, nb = slice(k0, k1), k1 - k0, self.nb
        end = self.end_force[sl] if end is None else end
        ref = None
        if dynamic and self.model.reference == "deflected":
            if self.reference is None:
                raise TypeError("KEDBatch: a deflected-reference model needs its "
                                "reference (the 'reference' argument)")
            ref = self.reference.at(k0, k1)
        a, b = self.model.rayleigh
        elastic = elastic or (dynamic and b != 0 and ref is None)
        z = lambda: np.zeros((c, 3, nb, nb))  # noqa: E731
        M, C, K = (z(), z(), z()) if dynamic else (None, None, None)
        Kel = z() if elastic else None
        F = np.zeros((c, 3, nb))
        u = slice(self.no, self.no + self.nu)
        for e in self.links:
            i, Fl = e["i"], e["F"][sl][:, e["perm"]]
            if e["li"] == 0:
                F[:, i, u] += Fl
                if elastic:
                    Kel[:, i, u, u] += e["lmb"].Ke
                if dynamic:
                    if ref is None:
                        M[:, i, u, u] += e["lmb"].M
                    C[:, i, u, u] += 2.0 * self._link_B(e, sl)
                    K[:, i, u, u] += self._link_K(e, sl, end[:, i, 0])
                continue
            T0, T1, T2 = (T[sl] for T in e["Tb"])
            no = self.no
            F[:, i, :no] += Fl[:, :no]
            F[:, i, no + self.nu - 6:] += np.einsum("nre,nr->ne", T0, Fl[:, no:])
            if elastic:
                self._add_lower(Kel, i, [(e["lmb"].Ke, T0, 1.0, True)], T0)
            if dynamic:
                Bg, Kl, Ml = self._link_B(e, sl), self._link_K(e, sl, end[:, i, 1]), e["lmb"].M
                if ref is None:
                    self._add_lower(M, i, [(Ml, T0, 1.0, True)], T0)
                self._add_lower(C, i, [(Ml, T1, 2.0, False), (Bg, T0, 2.0, True)], T0)
                self._add_lower(K, i, [(Ml, T2, 1.0, False), (Bg, T1, 2.0, False),
                                       (Kl, T0, 1.0, True)], T0)
        grav = np.asarray(self.model.robot.gravity, dtype=float)
        p = nb - 6
        F[:, 0, p:] += self.model.carried_body.load(grav - self.mo.Xdd[sl])
        if ref is not None:
            F, Kt, Md, Dm = ref
            M += Md  # the platform's mass included
            K += Kt
        elif dynamic:
            M[:, 0, p:, p:] += self.model.platform_mass_matrix
        if dynamic:
            # Rayleigh damping through the elastic stiffness about the reference: K_el
            # (undeformed), the material stiffness D (deflected; KEDEngine.system)
            if a:
                C += a * M
            if b:
                C += b * (Kel if ref is None else Dm)
        return M, C, K, Kel, F

    def dense(self, G):
        """Global (c, N, N) matrix of leg blocks G (c, 3, nb, nb), or global (c, N)
        vector of block vectors (c, 3, nb)."""
        return dense_leg_blocks(G, self.blocks, self.N, matrix=G.ndim == 4)

    def solve(self, S, r):
        """Solve the global system given by leg blocks S (c, 3, nb, nb) or their
        :meth:`prepare`, right-hand sides r (c, 3, nb) (the model's
        :attr:`~KEDEngine.leg_solver`)."""
        return self.model.leg_solver.solve(S, r)

    def prepare(self, S):
        """Leg blocks S (c, 3, nb, nb) gathered and checked once for many solves
        (:meth:`~.ked_blocks.LegBlockSolver.prepare`; index the result by sample)."""
        return self.model.leg_solver.prepare(S)

    @staticmethod
    def matvec(G, x):
        """Block products G (3, nb, nb) @ x (3, nb) (global vectors gathered by
        ``x[self.blocks]``)."""
        return (G @ x[..., None])[..., 0]

    def chunk(self, k0: int, k1: int, *, dynamic: bool = True, end=None):
        """Dense M, C, K, K_el (c, N, N) and F (c, N) for samples k0..k1-1 (tests and
        the mechanism case; the simulation uses :meth:`chunk_blocks`)."""
        M, C, K, Kel, F = self.chunk_blocks(k0, k1, dynamic=dynamic, end=end)
        return (*(None if G is None else self.dense(G) for G in (M, C, K, Kel)),
                self.dense(F))

    def chunks(self, size: int | None = None):
        """Yield (k0, k1, M, C, K, F) leg blocks over all samples (no K_el)."""
        size = size or self.chunk_size()
        for k0 in range(0, self.ns, size):
            k1 = min(self.ns, k0 + size)
            M, C, K, _, F = self.chunk_blocks(k0, k1, elastic=False)
            yield k0, k1, M, C, K, F

    def chunk_size(self) -> int:
        """Samples per chunk: about 2e6 matrix entries per array."""
        return int(max(1, min(512, 2_000_000 // (3 * self.nb * self.nb))))

    # ------------------------------------------------------------------ quasi-static
    def quasi_static(self):
        """Quasi-static solutions K_el u = F at every sample (minimum-norm least squares
        for a mechanism): (u (ns, N), axial end forces (ns, 3, 2) [N], actuator
        torques (ns, 3) [N m])."""
        m = self.model
        U = np.zeros((self.ns, self.N))
        end = np.zeros((self.ns, 3, 2))
        tq = np.zeros((self.ns, 3))
        size = self.chunk_size()
        for k0 in range(0, self.ns, size):
            k1 = min(self.ns, k0 + size)
            ks = np.arange(k0, k1)
            _, _, _, Kel, F = self.chunk_blocks(k0, k1, dynamic=False,
                                                end=np.zeros((k1 - k0, 3, 2)))
            if m.mechanisms:
                u = np.stack([np.linalg.lstsq(A, f, rcond=1e-10)[0]
                              for A, f in zip(self.dense(Kel), self.dense(F))])
            else:
                u = self.solve(Kel, F)
            U[ks] = u
            q = self.link_dofs(u, ks)
            for e in self.links:
                lm = e["lm"]
                f = q[e["i"]][e["li"]] @ lm.Ke - e["F"][ks]
                end[ks, e["i"], e["li"]] = f[:, m.n_elements * lm.nd]
                if e["li"] == 0:
                    tq[ks, e["i"]] = f[:, 4]
        return U, end, tq

    def link_dofs(self, delta, ks):
        """Link-frame nodal dofs for global variables delta (m, N) at samples ks:
        [[upper (m, nl), lower (m, nl)] per leg]."""
        out = [[None, None] for _ in range(3)]
        for e in self.links:
            lm = e["lm"]
            q = np.zeros((len(ks), lm.n_dofs))
            if e["li"] == 0:
                q[:, e["loc"]] = delta[:, e["cols"]]
            else:
                q[:, e["o"]] = delta[:, e["own_cols"]]
                q[:, e["r"]] = np.einsum("nre,ne->nr", e["T"][0][ks], delta[:, e["ext_cols"]])
            out[e["i"]][e["li"]] = q
        return out

    def actuator_torques(self, ks, delta, deltad, deltadd):
        """Actuator torques (m, 3) [N m] at samples ks, batched version of
        KEDEngine.actuator_torques."""
        q, qd, qdd = (self.link_dofs(x, ks) for x in (delta, deltad, deltadd))
        out = np.zeros((len(ks), 3))
        for e in self.links:
            if e["li"]:
                continue
            lm, i, r = e["lm"], e["i"], 4
            B = lm.combine(e["cg"][ks], rows=r)
            Krow = lm.combine(e["ck"][ks], rows=r) + lm.Ke[r]
            if self.model.preload:
                N = lm.axial_force(e["w"][ks], e["a0"][ks], e["g"][ks], self.end_force[ks, i, 0])
                Krow = Krow + lm.geometric(N, rows=r)
            out[:, i] = (np.einsum("nj,j->n", qdd[i][0], lm.M[r])
                         + 2.0 * np.einsum("nj,nj->n", B, qd[i][0])
                         + np.einsum("nj,nj->n", Krow, q[i][0]) - e["F"][ks][:, r])
        return out


def rest_matrices(model: KEDEngine, X):
    """Mass and stiffness (ns, dof, dof) of ``model`` at rest at the platform positions X
    (ns, 3) [m]: :meth:`KEDEngine.rest_matrices` (the matrices of
    :meth:`KEDEngine.system` at each pose), with the undeformed reference assembled
    for all poses at once by :class:`KEDBatch` (equal to ``system()`` to round-off,
    tests/formulations/ked/test_ked_delta_dynamics.py; 0.1 ms per pose at one element per link
    against 1
    ms); the deflected reference by the model's own warm-started Newton along the
    poses in order."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    if model.reference == "deflected" or len(X) == 0:
        return model.rest_matrices(X)
    M, _, K, _, _ = KEDBatch(model, model.motion(X)).chunk(0, len(X))
    return M, K
