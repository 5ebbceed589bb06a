"""Linear systems of the KED Delta in leg blocks (shared by the batched KED system
:mod:`elastodyn.formulations.ked_delta_batch` and the deflected reference
:mod:`elastodyn.formulations.ked_deflected`): leg i touches only its own variables and the
platform's six, so a global matrix is sum_i P_i^T G_i P_i with leg blocks G_i
(:attr:`elastodyn.formulations.ked_delta.KEDDeltaModel.leg_blocks`)."""
from __future__ import annotations

import numpy as np

__all__ = ["solve_leg_blocks", "dense_leg_blocks"]


def solve_leg_blocks(S, r, blocks, N):
    """Solve the global system given by leg blocks: S (..., 3, nb, nb), right-hand side r
    (..., 3, nb) in block form (platform rows summed over the legs), ``blocks`` (3, nb)
    the global index of every block row (:attr:`KEDDeltaModel.leg_blocks`), N the number
    of global variables; returns x (..., N). Arrow elimination: leg unknowns
    x_i = y_i - X_i p with [y_i X_i] = L_i^-1 [r_i B_i], then (P - sum B'_i X_i) p =
    r_p - sum B'_i y_i. Requires regular leg blocks L_i (true for M + h C + h^2 K and for
    K_el without mechanisms: a singular L_i is a mechanism with the platform held)."""
    m = S.shape[-1] - 6
    L, B, Bt = S[..., :m, :m], S[..., :m, m:], S[..., m:, :m]
    Y = np.linalg.solve(L, np.concatenate([r[..., :m, None], B], axis=-1))
    y, X = Y[..., 0], Y[..., 1:]
    P = (S[..., m:, m:] - Bt @ X).sum(axis=-3)
    rp = (r[..., m:] - (Bt @ y[..., None])[..., 0]).sum(axis=-2)
    p = np.linalg.solve(P, rp[..., None])
    x = np.empty(r.shape[:-2] + (N,))
    x[..., blocks[:, :m]] = y - (X @ p[..., None, :, :])[..., 0]
    x[..., :6] = p[..., 0]
    return x


def dense_leg_blocks(G, blocks, N, *, matrix: bool = True):
    """Global (..., N, N) matrix of leg blocks G (..., 3, nb, nb) (``matrix``), or global
    (..., N) vector of block vectors G (..., 3, nb) (platform rows summed over the legs)."""
    G = np.asarray(G)
    lead = G.shape[:-3] if matrix else G.shape[:-2]
    out = np.zeros(lead + (N,) * (2 if matrix else 1))
    for i, ix in enumerate(blocks):
        if matrix:
            out[..., ix[:, None], ix[None, :]] += G[..., i, :, :]
        else:
            out[..., ix] += G[..., i, :]
    return out
