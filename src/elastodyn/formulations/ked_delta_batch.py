"""Fast, batched evaluation of the KED system of :mod:`elastodyn.formulations.ked_delta`.

Same equations as :meth:`KEDDeltaModel.system` (the reference path, one sample at a time;
the tests check both give the same matrices), organised for speed along a trajectory:

* every time-varying link matrix is a linear combination of constant link matrices with
  coefficients from the rigid motion: K_l = K_e + sum_9 c_ab Q_ab + N0 G0 + N1 G1 + N2 G2
  with c = [al]x - (|w|^2 I - w w^T), the gyroscopic B_l = sum [w]x_ab Q_ab, the load
  P_l = (g - a0) I0 + c1 I1 - al_x Iphi; one matrix product per chunk of samples gives
  them all;
* S of a lower link is the identity on its own dofs and 12 rows T_j (the first six dofs
  of its two end nodes) on the shared variables (upper tip, releases, platform), so
  S^T A S_j needs only the blocks A_oo, A_or, A_ro, A_rr (o: own rows, r: end rows);
* samples are processed in chunks (numpy batched products, a few dozen calls per chunk).
"""
from __future__ import annotations

import numpy as np

from .ked_delta import KEDDeltaModel, DeltaMotion, _skew

__all__ = ["KEDBatch"]


def _coef_gyro(w):
    """(ns, 9) coefficients of B(w) = sum [w]x_ab Q_ab."""
    return _skew(w).reshape(len(w), 9)


def _coef_k(w, al):
    """(ns, 9) coefficients of B(al) - M_s(w)."""
    ww = np.einsum("na,nb->nab", w, w)
    cent = np.einsum("na,na->n", w, w)[:, None, None] * np.eye(3) - ww
    return (_skew(al) - cent).reshape(len(w), 9)


class KEDBatch:
    """The KED system of ``model`` at every sample of a rigid motion, in chunks.

    Parameters
    ----------
    model : KEDDeltaModel
    motion : DeltaMotion (ns samples)
    end_force : ndarray (ns, 3, 2) or None
        Axial end forces of the links [N]; None computes them exactly at every sample
        (one quasi-static solve per sample, batched).
    """

    def __init__(self, model: KEDDeltaModel, motion: DeltaMotion, end_force=None):
        self.model, self.mo = model, motion
        self.ns = len(motion)
        self.N = model.dof
        grav = np.asarray(model.robot.gravity, dtype=float)
        mo = motion
        self.links = []
        for i, c in enumerate(model._chains):
            for li, lm in enumerate(model.links):
                R = mo.Ru[:, i] if li == 0 else mo.Rl[:, i]
                RT = np.swapaxes(R, -1, -2)
                w = np.einsum("nij,nj->ni", RT, mo.wu[:, i] if li == 0 else mo.wl[:, i])
                al = np.einsum("nij,nj->ni", RT, mo.au[:, i] if li == 0 else mo.al[:, i])
                a0 = (np.zeros_like(w) if li == 0
                      else np.einsum("nij,nj->ni", RT, mo.Bdd[:, i]))
                g = np.einsum("nij,j->ni", RT, grav)
                c1 = np.stack([w[:, 1] ** 2 + w[:, 2] ** 2, -al[:, 2] - w[:, 0] * w[:, 1],
                               al[:, 1] - w[:, 0] * w[:, 2]], axis=1)
                F = (g - a0) @ lm.I0 + c1 @ lm.I1 - al[:, :1] * lm.Iphi
                entry = {"i": i, "li": li, "lm": lm, "w": w, "al": al, "a0": a0, "g": g,
                         "F": F, "cg": _coef_gyro(w), "ck": _coef_k(w, al)}
                if li == 0:
                    entry["loc"] = c["upper_local"]
                    entry["cols"] = c["upper_global"]
                else:
                    nd, n = lm.nd, model.n_elements
                    r = np.r_[0:6, n * nd:n * nd + 6]
                    entry["o"], entry["r"] = c["lower_local"], r
                    entry["own_cols"] = c["lower_global"]
                    entry["ext_cols"] = c["lower_cols"][len(c["lower_local"]):]
                    entry["T"] = self._T(i)
                self.links.append(entry)
        self.end_force = self.quasi_static()[1] if end_force is None else np.asarray(end_force)

    # ------------------------------------------------------------------ S blocks
    def _T(self, i):
        """T_j, j = 0, 1, 2: (ns, 12, next) rows of S (and derivatives) at the lower
        link's end dofs, batched version of KEDDeltaModel._lower_S."""
        m, mo = self.model, self.mo
        c = m._chains[i]
        kb, kd = len(c["rel_b"]), len(c["rel_d"])
        ns = self.ns
        Rl, Ru = mo.Rl[:, i], mo.Ru[:, i]
        RlT = np.swapaxes(Rl, -1, -2)
        Wl, Al = _skew(mo.wl[:, i]), _skew(mo.al[:, i])
        Wr = _skew(mo.wu[:, i] - mo.wl[:, i])
        P0 = [RlT, -RlT @ Wl, RlT @ (Wl @ Wl - Al)]
        P1 = [RlT @ Ru, RlT @ Wr @ Ru,
              RlT @ (-Wl @ Wr + _skew(mo.au[:, i] - mo.al[:, i]) + Wr @ _skew(mo.wu[:, i])) @ Ru]
        rx = _skew(mo.D[:, i] - mo.X)
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
        """K_l (c, nl, nl) for samples sl with end forces end (c,)."""
        lm = e["lm"]
        nl = lm.n_dofs
        K = (e["ck"][sl] @ lm.Q9).reshape(-1, nl, nl) + lm.Ke
        if self.model.preload:
            L, rA = lm.length, lm.rho_a
            b = e["g"][sl, 0] - e["a0"][sl, 0]
            wp2 = e["w"][sl, 1] ** 2 + e["w"][sl, 2] ** 2
            N = np.stack([end + rA * (b * L + 0.5 * wp2 * L * L), -rA * b, -0.5 * rA * wp2], 1)
            K = K + np.einsum("nk,kij->nij", N, lm.G)
        return K

    def _link_B(self, e, sl):
        lm = e["lm"]
        return (e["cg"][sl] @ lm.Q9).reshape(-1, lm.n_dofs, lm.n_dofs)

    @staticmethod
    def _proj(A, e, Tl, Tj, with_own, sl):
        """Blocks of S^T A S_j for a lower link: (oo, oe, eo, ee); A (c, nl, nl) or
        (nl, nl); S_j has the identity on own rows only for j = 0 (with_own)."""
        o, r = e["o"], e["r"]
        Aor = A[..., o[:, None], r[None, :]]
        Arr = A[..., r[:, None], r[None, :]]
        TlT = np.swapaxes(Tl, -1, -2)
        oe = Aor @ Tj
        ee = TlT @ Arr @ Tj
        if with_own:
            oo = A[..., o[:, None], o[None, :]]
            eo = TlT @ A[..., r[:, None], o[None, :]]
        else:
            oo = eo = None
        return oo, oe, eo, ee

    def _scatter(self, G, e, blocks, scale=1.0):
        oo, oe, eo, ee = blocks
        oc, ec = e["own_cols"], e["ext_cols"]
        c = G.shape[0]
        if oo is not None and len(oc):
            G[:, oc[:, None], oc[None, :]] += scale * np.broadcast_to(oo, (c,) + oo.shape[-2:])
        if len(oc):
            G[:, oc[:, None], ec[None, :]] += scale * oe
        if eo is not None and len(oc):
            G[:, ec[:, None], oc[None, :]] += scale * eo
        G[:, ec[:, None], ec[None, :]] += scale * ee

    # ------------------------------------------------------------------ assembly
    def chunk(self, k0: int, k1: int, *, dynamic: bool = True, end=None):
        """M, C, K, K_el (c, N, N) and F (c, N) for samples k0..k1-1."""
        N, sl = self.N, slice(k0, k1)
        c = k1 - k0
        end = self.end_force[sl] if end is None else end
        M, C, K, Kel = (np.zeros((c, N, N)) for _ in range(4))
        F = np.zeros((c, N))
        for e in self.links:
            lm = e["lm"]
            if e["li"] == 0:
                loc, cols = e["loc"], e["cols"]
                ix = (slice(None), cols[:, None], cols[None, :])
                lx = (Ellipsis, loc[:, None], loc[None, :])
                Kel[ix] += lm.Ke[lx]
                F[:, cols] += e["F"][sl][:, loc]
                if dynamic:
                    M[ix] += lm.M[lx]
                    C[ix] += 2.0 * self._link_B(e, sl)[lx]
                    K[ix] += self._link_K(e, sl, end[:, e["i"], 0])[lx]
                continue
            T0, T1, T2 = (T[sl] for T in e["T"])
            self._scatter(Kel, e, self._proj(lm.Ke, e, T0, T0, True, sl))
            Fl = e["F"][sl]
            F[:, e["own_cols"]] += Fl[:, e["o"]]
            F[:, e["ext_cols"]] += np.einsum("nre,nr->ne", T0, Fl[:, e["r"]])
            if not dynamic:
                continue
            Bg = self._link_B(e, sl)
            Kl = self._link_K(e, sl, end[:, e["i"], 1])
            self._scatter(M, e, self._proj(lm.M, e, T0, T0, True, sl))
            self._scatter(C, e, self._proj(lm.M, e, T0, T1, False, sl), 2.0)
            self._scatter(C, e, self._proj(Bg, e, T0, T0, True, sl), 2.0)
            self._scatter(K, e, self._proj(lm.M, e, T0, T2, False, sl))
            self._scatter(K, e, self._proj(Bg, e, T0, T1, False, sl), 2.0)
            self._scatter(K, e, self._proj(Kl, e, T0, T0, True, sl))
        pl = self.model.robot.platform
        grav = np.asarray(self.model.robot.gravity, dtype=float)
        F[:, 0:3] += pl.mass * (grav - self.mo.Xdd[sl])
        if dynamic:
            M[:, 0:3, 0:3] += pl.mass * np.eye(3)
            M[:, 3:6, 3:6] += np.diag(pl.inertia)
            a, b = self.model.rayleigh
            if a or b:
                C += a * M + b * Kel
        return M, C, K, Kel, F

    def chunks(self, size: int | None = None):
        """Yield (k0, k1, M, C, K, K_el, F) over all samples."""
        size = size or self.chunk_size()
        for k0 in range(0, self.ns, size):
            k1 = min(self.ns, k0 + size)
            yield (k0, k1, *self.chunk(k0, k1))

    def chunk_size(self) -> int:
        """Samples per chunk: about 2e6 matrix entries per array."""
        return int(max(1, min(512, 2_000_000 // (self.N * self.N))))

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
            _, _, _, Kel, F = self.chunk(k0, k1, dynamic=False, end=np.zeros((k1 - k0, 3, 2)))
            if m.mechanisms:
                u = np.stack([np.linalg.lstsq(A, f, rcond=1e-10)[0] for A, f in zip(Kel, F)])
            else:
                u = np.linalg.solve(Kel, F[..., None])[..., 0]
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
        KEDDeltaModel.actuator_torques."""
        q, qd, qdd = (self.link_dofs(x, ks) for x in (delta, deltad, deltadd))
        out = np.zeros((len(ks), 3))
        for e in self.links:
            if e["li"]:
                continue
            lm, i, r = e["lm"], e["i"], 4
            nl = lm.n_dofs
            B = (e["cg"][ks] @ lm.Q9.reshape(9, nl, nl)[:, r, :])
            Krow = e["ck"][ks] @ lm.Q9.reshape(9, nl, nl)[:, r, :] + lm.Ke[r]
            if self.model.preload:
                L, rA = lm.length, lm.rho_a
                b = e["g"][ks, 0] - e["a0"][ks, 0]
                wp2 = e["w"][ks, 1] ** 2 + e["w"][ks, 2] ** 2
                N = np.stack([self.end_force[ks, i, 0] + rA * (b * L + 0.5 * wp2 * L * L),
                              -rA * b, -0.5 * rA * wp2], 1)
                Krow = Krow + N @ lm.G[:, r, :]
            out[:, i] = (np.einsum("nj,j->n", qdd[i][0], lm.M[r])
                         + 2.0 * np.einsum("nj,nj->n", B, qd[i][0])
                         + np.einsum("nj,nj->n", Krow, q[i][0]) - e["F"][ks][:, r])
        return out
