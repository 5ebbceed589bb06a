"""Linear systems of the KED Delta in leg blocks (shared by the batched KED system
:mod:`elastodyn.formulations.ked.batch`, the deflected reference
:mod:`elastodyn.formulations.ked.deflected` and the model's own solves): leg i touches
only its own variables and the platform's six, so a global matrix is
sum_i P_i^T G_i P_i with leg blocks G_i (:attr:`KEDEngine.leg_blocks`).

One solver, :class:`LegBlockSolver`, for every caller (Newmark steps, quasi-static
paths, the deflected reference's Newton, the start at rest): arrow elimination of the
platform (a 6 x 6 Schur complement) over the three m x m leg parts L_i, which are
factorized

* **banded** (LAPACK gbsv, partial pivoting) in a reverse Cuthill-McKee order of their
  *structural* pattern (which variables share an element: the same at every pose, step
  and Newton iterate; :attr:`KEDEngine.leg_pattern`). Every link element couples
  the variables of its two nodes only, so the leg part is a chain of small cliques
  (upper link, joint B, lower link, joint D): half-bandwidth 13-15 for cubic elements
  and 29 for quintic ones, whatever the mesh, against m = 94 (cubic, 8 elements) or
  166 (quintic, 8): O(m) work instead of O(m^3). The three legs of a sample, and all
  the samples of a batch, go to LAPACK as ONE block-diagonal band matrix (partial
  pivoting never crosses a block: the entries below a block's diagonal in the next
  block's rows are exact zeros, so a row of the next block is only picked for an
  all-zero column, a singular block, reported as such);
* **dense** (LAPACK gesv through numpy, batched) where the band storage (2 kl + ku + 1
  rows, with the LU's fill) is more than half the block (:data:`BANDED_RATIO`): 1 to 6
  elements per link, cubic (m = 10 to 70) or quintic (m = 26 to 126). Measured on
  Kuo's 5 s circle: at 4 cubic elements (m = 46, 40 band rows) both take the same
  time, the gather into band storage eating the smaller factorization; at 8 elements
  (m = 94 cubic, 166 quintic) the band wins (1.2x, 1.4x on the whole run), and its
  advantage grows as (m / bandwidth)^2 with the mesh.

Every matrix given to the banded kernel is checked: an entry outside the band is a
:class:`~elastodyn.exceptions.ModelError` (the structural pattern is wrong), never a
silently wrong solve (a count of the nonzeros inside and outside, exact).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import lapack
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee

from ...exceptions import InputError, ModelError

__all__ = ["LegBlockSolver", "PreparedBlocks", "dense_leg_blocks", "band_order",
           "KERNELS"]

KERNELS = ("banded", "dense")
BANDED_RATIO = 2
"""Banded kernel when BANDED_RATIO x (band storage rows) <= leg part size m."""


def band_order(pattern):
    """Reverse Cuthill-McKee order of a symmetric structural pattern (m, m) (bool) and
    the half-bandwidth of the reordered pattern: (perm (m,), bandwidth)."""
    P = np.asarray(pattern, dtype=bool)
    P = P | P.T
    perm = np.asarray(reverse_cuthill_mckee(csr_matrix(P), symmetric_mode=True), dtype=int)
    i, j = np.nonzero(P[np.ix_(perm, perm)])
    return perm, int(np.max(np.abs(i - j))) if i.size else 0


class PreparedBlocks:
    """Leg blocks S (..., 3, nb, nb) made ready for :meth:`LegBlockSolver.solve` (band
    storage gathered and checked once, e.g. for a whole chunk of Newmark steps);
    ``prepared[j]`` selects along the leading axes without copying."""

    __slots__ = ("lead", "L", "B", "Bt", "Pp")

    def __init__(self, lead, L, B, Bt, Pp):
        self.lead, self.L, self.B, self.Bt, self.Pp = lead, L, B, Bt, Pp

    def __getitem__(self, key) -> "PreparedBlocks":
        L = self.L[key]
        lead = self.Pp[key].shape[:-3]
        return PreparedBlocks(lead, L, self.B[key], self.Bt[key], self.Pp[key])


class LegBlockSolver:
    """Solver of global systems given by leg blocks (module docstring).

    Parameters
    ----------
    pattern : (nb, nb) bool
        Structural nonzeros of a leg block (union over the legs), platform last (6).
    blocks : (3, nb) int
        Global index of every block row (:attr:`KEDEngine.leg_blocks`).
    N : int
        Number of global variables.
    kernel : {"banded", "dense"} or None
        None: banded when the band storage (ldab = 2 kl + ku + 1 rows) is at most half
        the block (:data:`BANDED_RATIO` ldab <= m), else dense (module docstring).

    Attributes
    ----------
    kernel : str; perm : (m,) the band order of the leg part; bandwidth : int
    """

    def __init__(self, pattern, blocks, N: int, *, kernel: str | None = None):
        pattern = np.asarray(pattern, dtype=bool)
        self.blocks = np.asarray(blocks)
        self.N = int(N)
        self.nb = nb = self.blocks.shape[1]
        if pattern.shape != (nb, nb):
            raise ModelError(f"LegBlockSolver: pattern of shape {pattern.shape}, blocks of "
                             f"{nb} rows")
        self.m = m = nb - 6
        self.perm, bw = band_order(pattern[:m, :m])
        self.bandwidth = self.kl = self.ku = bw
        self.ldab = 2 * bw + bw + 1
        if kernel is None:
            kernel = "banded" if BANDED_RATIO * self.ldab <= m else "dense"
        if kernel not in KERNELS:
            raise InputError("kernel", kernel, "banded, dense or None (by the band's width)")
        self.kernel = kernel
        # global columns of the leg part in band order
        self._cols = self.blocks[:, :m][:, self.perm]
        if kernel == "banded":
            # LAPACK band storage, column j of the reordered block stored contiguously
            # (shape (m, ldab), i.e. Fortran (ldab, m)): ab[kl + ku + i - j, j] = A[i, j]
            # for the rows i = j - ku .. j + kl; the first kl rows are LU fill (need not
            # be set). Gather index into the flattened nb x nb block. The entries of
            # the leg part outside the band (``_outside``) are checked to be zero at
            # every prepare, so the band positions outside the matrix (its corners)
            # and the fill rows gather one of them: a zero.
            p = self.perm
            ii, jj = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
            out = np.abs(ii - jj) > bw
            self._outside = (p[ii[out]] * nb + p[jj[out]]).astype(np.intp)
            j = np.arange(m)[:, None]
            d = np.arange(self.ldab)[None, :]
            i = j + d - 2 * bw
            inside = (i >= 0) & (i < m) & (d >= bw)
            # (a band as wide as the block, forced banded: nothing outside, zeroed)
            fill = self._outside[0] if self._outside.size else 0
            src = np.where(inside, p[np.clip(i, 0, m - 1)] * nb + p[j], fill)
            self._take = src.ravel().astype(np.intp)
            self._zero = None if self._outside.size else np.flatnonzero(~inside.ravel())

    # ------------------------------------------------------------------ prepare
    def prepare(self, S) -> PreparedBlocks:
        """Gather and check leg blocks S (..., 3, nb, nb) (module docstring).

        Raises
        ------
        ModelError
            An entry of a leg part outside the band of the structural pattern.
        """
        S = np.asarray(S)
        # complex blocks (a complex-step sensitivity of the deflected reference) kept
        S = np.ascontiguousarray(S, dtype=np.result_type(S, float))
        nb, m = self.nb, self.m
        if S.shape[-3:] != (3, nb, nb):
            raise ModelError(f"LegBlockSolver: blocks of shape {S.shape}, expected "
                             f"(..., 3, {nb}, {nb})")
        lead = S.shape[:-3]
        p = self.perm
        B = S[..., :m, m:][..., p, :]
        Bt = S[..., m:, :m][..., p]
        Pp = S[..., m:, m:]
        if self.kernel == "dense":
            return PreparedBlocks(lead, S[..., :m, :m][..., p[:, None], p[None, :]],
                                  B, Bt, Pp)
        flat = S.reshape(-1, nb * nb)
        # exact check of the pattern: every entry of the leg parts outside the band is
        # zero (NaN counts as nonzero)
        outside = flat[:, self._outside]
        if np.any(outside != 0.0):
            bad = int(np.count_nonzero(outside != 0.0))
            raise ModelError(f"leg-block solve: {bad} entries of the leg blocks lie outside "
                             f"the band (half-bandwidth {self.bandwidth}) of the structural "
                             "pattern; the model's leg_pattern is wrong")
        ab = flat[:, self._take]
        if self._zero is not None:
            ab[:, self._zero] = 0.0
        return PreparedBlocks(lead, ab.reshape(lead + (3, m, self.ldab)), B, Bt, Pp)

    # ------------------------------------------------------------------ solve
    def solve(self, S, r) -> np.ndarray:
        """Solve the global system given by leg blocks S (..., 3, nb, nb) (or their
        :meth:`prepare`), right-hand side r (..., 3, nb) in block form (platform rows
        summed over the legs); returns x (..., N). Arrow elimination: leg unknowns
        x_i = y_i - X_i p with [y_i X_i] = L_i^-1 [r_i B_i], then
        (P - sum B'_i X_i) p = r_p - sum B'_i y_i. Requires regular leg parts L_i (true
        for M + h C + h^2 K and for K_el without mechanisms: a singular L_i is a
        mechanism with the platform held).

        Raises
        ------
        numpy.linalg.LinAlgError
            A singular leg part or Schur complement (exactly zero pivot).
        ModelError
            Leg blocks outside the structural pattern's band (:meth:`prepare`).
        """
        P = S if isinstance(S, PreparedBlocks) else self.prepare(S)
        m = self.m
        r = np.asarray(r)
        r = r.astype(np.result_type(r, P.Pp, float), copy=False)
        if r.shape != P.lead + (3, self.nb):
            raise ModelError(f"LegBlockSolver: right-hand side of shape {r.shape}, "
                             f"expected {P.lead + (3, self.nb)}")
        rhs = np.concatenate([r[..., :m][..., self.perm, None], P.B], axis=-1)
        if self.kernel == "dense":
            Y = np.linalg.solve(P.L, rhs)
        else:
            Y = self._band_solve(P.L, rhs)
        y, X = Y[..., 0], Y[..., 1:]
        Sch = (P.Pp - P.Bt @ X).sum(axis=-3)
        rp = (r[..., m:] - (P.Bt @ y[..., None])[..., 0]).sum(axis=-2)
        p = np.linalg.solve(Sch, rp[..., None])
        x = np.empty(r.shape[:-2] + (self.N,), dtype=np.result_type(y, X, p))
        x[..., self._cols] = y - (X @ p[..., None, :, :])[..., 0]
        x[..., :6] = p[..., 0]
        return x

    def _band_solve(self, ab, rhs):
        """All leg parts ab (..., 3, m, ldab) as one block-diagonal band matrix (module
        docstring), right-hand sides rhs (..., 3, m, k)."""
        k = rhs.shape[-1]
        n = int(np.prod(ab.shape[:-1]))
        A = ab.reshape(n, self.ldab).T            # Fortran (ldab, n): no copy
        cplx = np.iscomplexobj(ab) or np.iscomplexobj(rhs)
        dt = complex if cplx else float
        b = np.asfortranarray(rhs.reshape(n, k), dtype=dt)
        gbsv = lapack.zgbsv if cplx else lapack.dgbsv   # complex: a complex step passes
        _, _, x, info = gbsv(self.kl, self.ku, A.astype(dt, copy=False), b,
                             overwrite_ab=False, overwrite_b=True)
        if info > 0:
            raise np.linalg.LinAlgError("singular leg block (zero pivot)")
        if info < 0:  # pragma: no cover - a bug in the call, not in the data
            raise RuntimeError(f"dgbsv: illegal argument {-info}")
        return x.reshape(rhs.shape)


def dense_leg_blocks(G, blocks, N, *, matrix: bool = True):
    """Global (..., N, N) matrix of leg blocks G (..., 3, nb, nb) (``matrix``), or global
    (..., N) vector of block vectors G (..., 3, nb) (platform rows summed over the legs)."""
    G = np.asarray(G)
    lead = G.shape[:-3] if matrix else G.shape[:-2]
    out = np.zeros(lead + (N,) * (2 if matrix else 1), dtype=np.result_type(G, float))
    for i, ix in enumerate(blocks):
        if matrix:
            out[..., ix[:, None], ix[None, :]] += G[..., i, :, :]
        else:
            out[..., ix] += G[..., i, :]
    return out
