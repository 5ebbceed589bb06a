"""Natural frequencies and mode shapes of K phi = omega^2 M phi (generalized symmetric
eigenproblem, dense LAPACK or sparse shift-invert).

A finite-element kernel: formulations (e.g. :mod:`elastodyn.formulations.ked.engine`) and
analyses use it; :mod:`elastodyn.analysis.modal` re-exports it with the link-level helpers
(:func:`~elastodyn.analysis.modal.beam_modes`, mode kinds).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._validate import positive_int
from ..exceptions import DimensionError, InputError, ModelError

__all__ = ["DENSE_LIMIT", "ModalResult", "modal_analysis", "modal_batch",
           "lowest_eigenvalues"]

DENSE_LIMIT = 400
"""Problems up to this size use LAPACK's dense eigh; larger ones sparse shift-invert."""


@dataclass(frozen=True)
class ModalResult:
    """Natural frequencies and mass-normalized mode shapes.

    Attributes
    ----------
    omega_rad_s : ndarray, shape (count,)
        Circular natural frequencies, ascending [rad/s].
    frequencies_hz : ndarray, shape (count,)
        omega / (2 pi) [Hz].
    mode_shapes : ndarray, shape (n_full, count)
        Mode shapes on all dofs (fixed dofs zero), phi^T M phi = 1.
    dof : int
        Number of free degrees of freedom of the eigenproblem.
    labels : tuple of str
        Labels of the n_full dofs.
    kinds : tuple of str
        Dominant field of each mode by kinetic-energy share (``axial``, ``torsion``,
        ``bending-v``, ``bending-w``; ``bending`` when v and w together pass 60 %, as for
        the degenerate pairs of a square section; else ``mixed``), when known.
    """

    omega_rad_s: np.ndarray
    frequencies_hz: np.ndarray
    mode_shapes: np.ndarray
    dof: int
    labels: tuple = ()
    kinds: tuple = ()

    def to_dict(self) -> dict:
        """JSON-ready dict: ``omega_rad_s``, ``frequencies_hz``, ``dof``, ``kinds``."""
        return {"omega_rad_s": [float(w) for w in self.omega_rad_s],
                "frequencies_hz": [float(f) for f in self.frequencies_hz],
                "dof": int(self.dof), "kinds": list(self.kinds)}


def modal_analysis(M, K, *, count: int, free_dofs=None, labels=()) -> ModalResult:
    """Lowest ``count`` eigenpairs of K phi = lambda M phi, omega = sqrt(max(lambda, 0)).

    Parameters
    ----------
    M, K : ndarray or sparse matrix, shape (n, n)
        Symmetric mass (positive definite on ``free_dofs``) and stiffness (positive
        semi-definite) matrices.
    count : int
        Number of modes; 1 <= count <= number of free dofs.
    free_dofs : array_like of int, optional
        Dofs kept (the others are fixed at zero). Default: all.
    labels : sequence of str
        Dof labels stored in the result.

    Notes
    -----
    Up to DENSE_LIMIT free dofs, LAPACK ``eigh`` with an index subset; above, ARPACK in
    shift-invert mode around a small negative shift (K - sigma M is then positive
    definite even with rigid-body modes). Eigenvalues within round-off of zero
    (|lambda| < 100 eps max_i K_ii/M_ii) are rigid-body modes and reported as 0.

    Accuracy: the absolute error of every eigenvalue lambda = omega^2 is of the order of
    eps * lambda_max (eps = 2.2e-16), lambda_max being the highest eigenvalue of the
    discretization (axial and curvature dofs make it large: ~1e13 rad^2/s^2 for 100
    steel elements of 1 cm). The relative error of a low frequency is therefore about
    eps lambda_max / (2 omega^2), ~1e-6 for the first bending mode of such a mesh.
    """
    M, K, n = _check_pencil(M, K)
    free = _free_dofs(free_dofs, n)
    nf = free.size
    count = positive_int("count", count)
    if count > nf:
        raise InputError("count", count, f"an integer in [1, {nf}] (the free degrees of freedom)")
    Mf = M[np.ix_(free, free)] if not sp.issparse(M) else M.tocsr()[free][:, free]
    Kf = K[np.ix_(free, free)] if not sp.issparse(K) else K.tocsr()[free][:, free]
    _check_resolvable(Mf, Kf)
    if nf <= DENSE_LIMIT or count >= nf - 1:
        Md = Mf.toarray() if sp.issparse(Mf) else np.asarray(Mf)
        Kd = Kf.toarray() if sp.issparse(Kf) else np.asarray(Kf)
        try:
            lam, vec = sla.eigh(Kd, Md, subset_by_index=[0, count - 1])
        except np.linalg.LinAlgError as exc:
            raise ModelError(f"mass matrix is not positive definite: {exc}") from None
    else:
        Ms, Ks = sp.csc_matrix(Mf), sp.csc_matrix(Kf)
        # Shift: a small fraction of the smallest diagonal stiffness/mass ratio.
        d = Ks.diagonal() / Ms.diagonal()
        sigma = -1e-6 * float(np.min(d[d > 0])) if np.any(d > 0) else -1.0
        lam, vec = spla.eigsh(Ks, k=count, M=Ms, sigma=sigma, which="LM")
        order = np.argsort(lam)
        lam, vec = lam[order], vec[:, order]
        # normalize to phi^T M phi = 1
        vec = vec / np.sqrt(np.einsum("ik,ik->k", vec, Ms @ vec))
    # Round-off of the eigenvalues is ~ eps * lambda_max <~ eps * max(K_ii / M_ii);
    # rigid-body modes come out at that level, so |lambda| below 100 eps of that scale
    # is a zero mode. (Very fine meshes push max(K_ii/M_ii) up as h^-4 through the
    # rotation dofs; when it reaches omega_1^2 / (100 eps) the lowest elastic
    # frequencies are below round-off and are reported as 0: the mesh is too fine.)
    dk = np.abs(Kf.diagonal() if sp.issparse(Kf) else np.diag(Kf))
    dm = np.abs(Mf.diagonal() if sp.issparse(Mf) else np.diag(Mf))
    scale = max(float(np.max(dk / np.where(dm > 0, dm, np.inf))), 1e-300)
    if np.any(lam < -100 * np.finfo(float).eps * scale):  # unstable (e.g. buckled)
        raise ModelError("stiffness matrix is not positive semi-definite (unstable, e.g. "
                         "compressed beyond buckling) "
                         f"(eigenvalue {lam.min():.3e})")
    lam = np.where(np.abs(lam) < 100 * np.finfo(float).eps * scale, 0.0, lam)
    omega = np.sqrt(np.maximum(lam, 0.0))
    shapes = np.zeros((n, count))
    shapes[free] = vec
    return ModalResult(omega_rad_s=omega, frequencies_hz=omega / (2 * math.pi),
                       mode_shapes=shapes, dof=nf, labels=tuple(labels))


def lowest_eigenvalues(M, K, *, count: int = 1) -> np.ndarray:
    """The lowest ``count`` eigenvalues lambda of K phi = lambda M phi, ascending, with
    their signs: a K that is not positive semi-definite (a tangent stiffness past
    buckling) gives negative ones, which :func:`modal_analysis` refuses. For stability
    checks and the steps of integrators (lambda = omega^2 [rad^2/s^2] of a stable pencil).

    Parameters
    ----------
    M, K : array_like (n, n)
        Symmetric (within :data:`SYMMETRY_RTOL`) real matrices, M positive definite.
    count : int
        1 <= count <= n.

    Raises
    ------
    InputError
        M or K not finite, square or symmetric; ``count`` out of range.
    ModelError
        M is not positive definite.

    Notes
    -----
    LAPACK's symmetric-definite solver with an index subset (``scipy.linalg.eigh``, as
    the dense path of :func:`modal_analysis`); the error of each eigenvalue is of the
    order of eps * |lambda|_max (see :func:`modal_analysis`).
    """
    M, K, n = _check_pencil(M, K)
    count = positive_int("count", count)
    if count > n:
        raise InputError("count", count, f"an integer in [1, {n}]")
    Md = M.toarray() if sp.issparse(M) else M
    Kd = K.toarray() if sp.issparse(K) else K
    try:
        return sla.eigh(Kd, Md, eigvals_only=True, subset_by_index=[0, count - 1])
    except np.linalg.LinAlgError as exc:
        raise ModelError(f"mass matrix is not positive definite: {exc}") from None


SYMMETRY_RTOL = 1e-8
"""Largest accepted asymmetry max|A - A^T| / max|A| of M and K. Assembled element
matrices are symmetric to round-off (a few eps per summed term: ~1e-14 for the meshes
here) and the tangent stiffness of a conservative model is symmetric to the accuracy of
its linearization (the models here differentiate exactly; a finite-difference tangent
is symmetric to ~sqrt(eps) ~ 1e-8); a larger asymmetry is a non-symmetric matrix (a
follower load, a wrong argument), whose eigenproblem this solver does not solve."""

RESOLVABLE_RATIO = 1e-3
"""Largest accepted eps * max_i(K_ii/M_ii) / min_i(K_ii/M_ii) (over the dofs with
stiffness): the eigenvalue error is ~eps lambda_max (see :func:`modal_analysis`), and
K_ii/M_ii bounds the lowest eigenvalue of the field that dof carries from above (the
Rayleigh quotient of the unit vector; ~ (h/L)^-2 times that field's first eigenvalue on a
mesh of elements of length h), so beyond this ratio the lowest frequencies of the softest
field carry a relative error of 1e-3 or more and come out as 0 (e.g. E = 1e300 Pa with
G = 80 GPa: every torsion frequency lost)."""


def _check_pencil(M, K):
    """(M, K, n) (dense ones as float arrays), after checking that M and K are finite
    square (n, n) matrices of one shape and symmetric within :data:`SYMMETRY_RTOL`
    (InputError naming M or K otherwise)."""
    shapes, out = {}, []
    for name, A in (("M", M), ("K", K)):
        if not sp.issparse(A):
            try:
                A = np.asarray(A, dtype=float)
            except (TypeError, ValueError):
                raise InputError(name, "a non-numeric or ragged array",
                                 "a real square matrix") from None
        out.append(A)
        shape = getattr(A, "shape", None)
        if shape is None or len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0:
            raise InputError(name, f"an array of shape {shape}", "a square matrix (n, n), "
                             "n >= 1")
        shapes[name] = shape
        data = A.data if sp.issparse(A) else A
        try:
            data = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise InputError(name, "a non-numeric array", "a real matrix") from None
        if not np.all(np.isfinite(data)):
            raise InputError(name, "a matrix with inf or nan entries", "finite entries")
        big = float(np.max(np.abs(data))) if data.size else 0.0
        asym = abs(A - A.T).max() if sp.issparse(A) else float(np.max(np.abs(
            data - data.T)))
        if asym > SYMMETRY_RTOL * big:
            raise InputError(name, f"a matrix with max|{name} - {name}^T| / max|{name}| = "
                             f"{asym / big:.3g}", f"a symmetric matrix (relative asymmetry "
                             f"<= {SYMMETRY_RTOL:g})")
    if shapes["M"] != shapes["K"]:
        raise InputError("K", f"an array of shape {shapes['K']}", f"the shape of M "
                         f"{shapes['M']}")
    return out[0], out[1], int(shapes["M"][0])


def _free_dofs(free_dofs, n: int) -> np.ndarray:
    if free_dofs is None:
        return np.arange(n)
    free = np.asarray(free_dofs)
    if free.ndim != 1 or free.size == 0 or free.dtype.kind not in "iu" or np.any(
            free < 0) or np.any(free >= n) or np.unique(free).size != free.size:
        raise InputError("free_dofs", free_dofs, f"distinct integers in [0, {n - 1}]")
    return free.astype(int)


def _check_resolvable(Mf, Kf) -> None:
    """ModelError when the stiffness-to-mass ratios of the dofs span more than
    :data:`RESOLVABLE_RATIO` / eps: the softest field's frequencies are below round-off."""
    dk = np.abs(Kf.diagonal() if sp.issparse(Kf) else np.diag(Kf))
    dm = np.abs(Mf.diagonal() if sp.issparse(Mf) else np.diag(Mf))
    ok = (dk > 0) & (dm > 0)
    if not np.any(ok):
        return
    d = dk[ok] / dm[ok]
    spread = float(np.max(d) / np.min(d))
    if not np.isfinite(spread) or np.finfo(float).eps * spread > RESOLVABLE_RATIO:
        raise ModelError(f"the eigenproblem cannot be resolved in double precision: the "
                         f"stiffness/mass ratios of the degrees of freedom span "
                         f"{spread:.3g} (more than {RESOLVABLE_RATIO:g}/eps), so the lowest "
                         "frequencies would be lost to round-off (check the material and "
                         "section values: E, G, rho, sizes)")


def modal_batch(M, K, *, count: int):
    """Lowest ``count`` eigenpairs of K phi = lambda M phi for a stack of problems of one
    size (the poses of a map: same structure, different values), all at once.

    Parameters
    ----------
    M, K : ndarray, shape (B, n, n)
        Symmetric mass (positive definite) and stiffness matrices.
    count : int
        1 <= count <= n.

    Returns
    -------
    omega : ndarray (B, count)
        Circular frequencies [rad/s], ascending; NaN where the problem has no answer.
    shapes : ndarray (B, n, count)
        Mass-normalized mode shapes (phi^T M phi = 1).
    failures : list of (str or None)
        Per problem: None, or why it has no answer (mass not positive definite, stiffness
        not positive semi-definite).

    Notes
    -----
    The standard reduction of the symmetric-definite problem (Golub & Van Loan 8.7.2,
    what LAPACK's sygv does): M = L L^T, A = L^-1 K L^-T, A y = lambda y, phi = L^-T y,
    batched over B with numpy's stacked Cholesky and eigh. Its eigenvalues agree with
    :func:`modal_analysis` to round-off (eps kappa(M) lambda_max); zero modes and the
    stability test use the same threshold as :func:`modal_analysis`.
    """
    M = np.asarray(M, dtype=float)
    K = np.asarray(K, dtype=float)
    if M.ndim != 3 or M.shape != K.shape or M.shape[1] != M.shape[2]:
        raise DimensionError(f"modal_batch: M and K must be stacks (B, n, n) of one shape, "
                             f"got {M.shape} and {K.shape}")
    B, n, _ = M.shape
    count = positive_int("count", count)
    if count > n:
        raise InputError("count", count, f"an integer in [1, {n}] (the degrees of freedom)")
    omega = np.full((B, count), np.nan)
    shapes = np.full((B, n, count), np.nan)
    failures: list = [None] * B
    if B == 0:
        return omega, shapes, failures
    Ms = 0.5 * (M + np.swapaxes(M, 1, 2))
    Ks = 0.5 * (K + np.swapaxes(K, 1, 2))
    ok = np.all(np.isfinite(Ms), axis=(1, 2)) & np.all(np.isfinite(Ks), axis=(1, 2))
    L = np.zeros_like(Ms)
    for b in np.flatnonzero(ok):      # Cholesky per problem: one failure stays its own
        try:
            L[b] = np.linalg.cholesky(Ms[b])
        except np.linalg.LinAlgError:
            ok[b] = False
            failures[b] = "mass matrix is not positive definite"
    for b in np.flatnonzero(~ok):
        failures[b] = failures[b] or "non-finite mass or stiffness"
    for b in np.flatnonzero(ok):      # the same resolvability as modal_analysis
        try:
            _check_resolvable(Ms[b], Ks[b])
        except ModelError as exc:
            ok[b] = False
            failures[b] = str(exc)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return omega, shapes, failures
    Li = np.linalg.inv(L[idx])
    A = Li @ Ks[idx] @ np.swapaxes(Li, 1, 2)
    lam, Y = np.linalg.eigh(0.5 * (A + np.swapaxes(A, 1, 2)))
    lam, Y = lam[:, :count], Y[:, :, :count]
    phi = np.swapaxes(Li, 1, 2) @ Y
    dk = np.abs(np.diagonal(Ks[idx], axis1=1, axis2=2))
    dm = np.abs(np.diagonal(Ms[idx], axis1=1, axis2=2))
    scale = np.maximum(np.max(dk / np.where(dm > 0, dm, np.inf), axis=1), 1e-300)
    tol = 100 * np.finfo(float).eps * scale[:, None]
    unstable = np.any(lam < -tol, axis=1)
    lam = np.where(np.abs(lam) < tol, 0.0, lam)
    for j, b in enumerate(idx):
        if unstable[j]:
            failures[b] = ("stiffness matrix is not positive semi-definite (unstable, e.g. "
                           f"compressed beyond buckling) (eigenvalue {lam[j].min():.3e})")
            continue
        omega[b] = np.sqrt(np.maximum(lam[j], 0.0))
        shapes[b] = phi[j]
    return omega, shapes, failures
