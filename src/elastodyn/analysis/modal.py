"""Natural frequencies and mode shapes of beams: link modes with their field kinds.

The generalized eigenproblem K phi = omega^2 M phi itself (:class:`ModalResult`,
:func:`modal_analysis`) is a finite-element kernel in :mod:`elastodyn.fem.modal`; it is
re-exported here, so ``from elastodyn.analysis.modal import modal_analysis`` keeps working.
"""
from __future__ import annotations

import numpy as np

from ..fem.assembly import Link
from ..fem.modal import DENSE_LIMIT, ModalResult, modal_analysis

__all__ = ["DENSE_LIMIT", "ModalResult", "modal_analysis", "align_degenerate_modes",
           "mode_kinds", "beam_modes"]

_FIELD_KIND = {"u": "axial", "phi": "torsion", "v": "bending-v", "w": "bending-w"}


def _field_energies(link: Link, shapes: np.ndarray) -> dict:
    return {f: np.einsum("ik,ik->k", shapes, link.field_mass(f) @ shapes)
            for f in link.element.fields}


def align_degenerate_modes(link: Link, result: ModalResult, rtol: float = 1e-6) -> ModalResult:
    """Rotate modes of (numerically) equal frequency so each one follows one field.

    Within a cluster of equal eigenvalues any M-orthonormal basis is valid; LAPACK
    returns an arbitrary mixture (e.g. v and w bending of a square section). The
    cluster's basis is rotated (orthogonally, so phi^T M phi = I is kept) to diagonalize
    sum_f c_f Phi^T M_f Phi with distinct weights c_f, separating the fields.
    """
    shapes = result.mode_shapes.copy()
    lam = result.omega_rad_s**2
    scale = max(float(lam.max()), 1e-300)
    weights = {f: float(i + 1) for i, f in enumerate(link.element.fields)}
    k = 0
    while k < lam.size:
        j = k + 1
        while j < lam.size and abs(lam[j] - lam[k]) <= rtol * max(lam[k], 1e-9 * scale):
            j += 1
        if j - k > 1:
            Phi = shapes[:, k:j]
            A = sum(c * (Phi.T @ (link.field_mass(f) @ Phi)) for f, c in weights.items())
            # a rotation within the cluster (standard symmetric, not an M, K pencil)
            _, R = np.linalg.eigh(0.5 * (A + A.T))
            shapes[:, k:j] = Phi @ R
        k = j
    return ModalResult(omega_rad_s=result.omega_rad_s, frequencies_hz=result.frequencies_hz,
                       mode_shapes=shapes, dof=result.dof, labels=result.labels,
                       kinds=mode_kinds(link, shapes))


def mode_kinds(link: Link, shapes: np.ndarray) -> tuple[str, ...]:
    """Dominant field of each mode by its share of modal kinetic energy.

    The kinetic energy of field f is rho A int f^2 dx (rho I_p for the torsion angle).
    """
    energies = _field_energies(link, shapes)
    kinds = []
    for k in range(shapes.shape[1]):
        e = {f: float(energies[f][k]) for f in energies}
        total = sum(e.values())
        best = max(e, key=e.get)
        bend = e.get("v", 0.0) + e.get("w", 0.0)
        if total > 0 and e[best] >= 0.6 * total:
            kinds.append(_FIELD_KIND[best])
        elif total > 0 and bend >= 0.6 * total:
            kinds.append("bending")
        else:
            kinds.append("mixed")
    return tuple(kinds)


def beam_modes(link: Link, *, count: int) -> ModalResult:
    """Natural frequencies of a single link with its end conditions and point masses.

    Parameters
    ----------
    link : Link
        The meshed link.
    count : int
        Number of modes, 1 <= count <= free dofs.

    Returns
    -------
    ModalResult
        With ``kinds`` filled and degenerate modes aligned with the fields.
    """
    res = modal_analysis(link.mass(), link.stiffness(), count=count,
                         free_dofs=link.free_dofs(), labels=link.dof_labels())
    return align_degenerate_modes(link, res)
