"""Symbolic linear solves as straight-line code: Gauss elimination with partial pivoting
made branch-free by conditional row swaps.

A generated program has no branches, so the pivot cannot be chosen by an ``if`` at run
time; eliminating in a fixed order instead (no pivoting) divides by whatever lands on the
diagonal, which vanishes at some configurations (a closure Jacobian of a 3-PRR robot
has an entry that is zero when a leg is perpendicular to the rails) and can even be
structurally zero. :class:`PivotedLU` performs the partial pivoting of LAPACK's getrf
with every row exchange replaced by *conditional* swaps:

* at step k, for each row i > k whose entry (i, k) is not structurally zero, the flag
  f = [|a_ik| > max_k] (:class:`~elastodyn.symbolic.core.IsGreater`, ``max_k`` the
  largest magnitude met so far in column k, itself carried by a select) decides whether
  rows k and i are exchanged: a_kj <- Select(f, a_ij, a_kj), a_ij <- Select(f, a_kj,
  a_ij) for the remaining columns j >= k. After the sweep row k holds the entry of
  largest magnitude of column k (the first one in row order on ties);
* a structurally zero diagonal entry (an exact symbolic 0) is exchanged at generation
  time with the first row below whose entry is not structurally zero (no select: that
  row's entry is at least as large in magnitude at every input), and flags whose two
  magnitudes are numbers are decided at generation time as well;
* the multipliers l_ik = a_ik / a_kk use one reciprocal of the pivot per step.

At every input where the matrix is non-singular, the chosen pivot is the largest entry of
its column in the active submatrix, hence nonzero (a zero column there means a singular
matrix): the program never divides by zero there, and its rounding errors are those of
LU with partial pivoting (growth factor bounded by 2^(n-1), in practice small). The
result differs from LAPACK's only by the order of the non-pivot rows (swaps with row k
instead of one exchange), i.e. by rounding.

Why this choice (rather than the alternatives considered):

* QR by Householder reflections needs no pivoting and divides only by column norms
  (nonzero for a non-singular matrix), but needs a square root per column and a
  copysign, and costs about twice the multiplications of LU;
* normal equations (A^T A by LDL^T, which needs no pivoting) square the condition number;
* the adjugate (used by the callers for n <= 3: cheapest there) grows as n! terms.

Cost, with m right-hand sides and no structure: n(n-1)/2 comparisons and flags,
about n^3/3 selects on A and n(n-1)/2 m selects on B for the swaps, and the arithmetic
of unpivoted LU (about n^3/3 + n^2 m multiplications). Structural zeros of A and B
remove both the selects and the arithmetic that they make trivial.
"""
from __future__ import annotations

import sympy as sp

from ..exceptions import InputError, ModelError
from .core import IsGreater, Recorder, Select

__all__ = ["PivotedLU", "solve_pivoted"]


def _zero(e) -> bool:
    """Structurally zero: an exact 0 or a zero Float (sympy >= 1.13: Float(0.0) != 0)."""
    return e == 0 or (e.is_Number and e.is_zero)


class PivotedLU:
    """Branch-free LU factorization with partial pivoting of a square symbolic matrix
    (module docstring), recorded in ``rec``.

    Parameters
    ----------
    rec : Recorder
        Where the intermediate variables go.
    A : sympy.Matrix (n, n)
        Entries: numbers, inputs or recorded variables.

    Raises
    ------
    ModelError
        If a column of the active submatrix is structurally zero (A singular at every
        input).
    """

    def __init__(self, rec: Recorder, A):
        A = sp.Matrix(A)
        if A.rows != A.cols:
            raise InputError("A", A.shape, "a square matrix")
        self.rec = rec
        self.n = n = A.rows
        U = A.copy()
        self.steps = []          # per k: (swaps [(i, flag | None)], 1/pivot, [(i, l_ik)])
        for k in range(n):
            swaps = []
            cand = [i for i in range(k + 1, n) if not _zero(U[i, k])]
            if _zero(U[k, k]):
                if not cand:
                    raise ModelError(f"structurally singular matrix: column {k} has no "
                                     f"nonzero entry in rows {k}..{n - 1} after elimination")
                i = cand.pop(0)
                U.row_swap(k, i)
                swaps.append((i, None))
            if cand:
                big = rec(sp.Abs(U[k, k]))
                for i in cand:
                    ai = rec(sp.Abs(U[i, k]))
                    f = rec(IsGreater(ai, big))
                    if f == 0:
                        continue
                    if f == 1:
                        U.row_swap(k, i)
                        swaps.append((i, None))
                        big = ai
                        continue
                    for j in range(k, n):
                        u, v = U[k, j], U[i, j]
                        U[k, j], U[i, j] = rec(Select(f, v, u)), rec(Select(f, u, v))
                    big = rec(Select(f, ai, big))
                    swaps.append((i, f))
            piv = rec(1 / U[k, k])
            mult = []
            for i in range(k + 1, n):
                if _zero(U[i, k]):
                    continue
                lik = rec(U[i, k] * piv)
                for j in range(k + 1, n):
                    if not _zero(U[k, j]):
                        U[i, j] = rec(U[i, j] - lik * U[k, j])
                U[i, k] = sp.Integer(0)
                mult.append((i, lik))
            self.steps.append((swaps, piv, mult))
        self.U = U

    def solve(self, B) -> sp.Matrix:
        """A^-1 B (n, m) for a symbolic B (n, m): the recorded swaps and eliminations
        replayed on B, then back substitution with the reciprocal pivots."""
        rec, n = self.rec, self.n
        B = sp.Matrix(B).copy()
        if B.rows != n:
            raise InputError("B", B.shape, f"{n} rows")
        m = B.cols
        for k, (swaps, _, mult) in enumerate(self.steps):
            for i, f in swaps:
                if f is None:
                    B.row_swap(k, i)
                    continue
                for j in range(m):
                    u, v = B[k, j], B[i, j]
                    B[k, j], B[i, j] = rec(Select(f, v, u)), rec(Select(f, u, v))
            for i, lik in mult:
                for j in range(m):
                    if not _zero(B[k, j]):
                        B[i, j] = rec(B[i, j] - lik * B[k, j])
        X = sp.zeros(n, m)
        U = self.U
        for k in reversed(range(n)):
            piv = self.steps[k][1]
            for j in range(m):
                acc = B[k, j] - sum((U[k, c] * X[c, j] for c in range(k + 1, n)
                                     if not (_zero(U[k, c]) or _zero(X[c, j]))),
                          sp.Integer(0))
                X[k, j] = rec(acc * piv)
        return X

    def inverse(self) -> sp.Matrix:
        """A^-1 (n, n)."""
        return self.solve(sp.eye(self.n))


def solve_pivoted(rec: Recorder, A, B) -> sp.Matrix:
    """A^-1 B by :class:`PivotedLU` (A (n, n) square, B (n, m))."""
    return PivotedLU(rec, A).solve(B)
