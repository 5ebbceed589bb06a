/* Dense LU factorization with partial pivoting, and its solve, for the hand-written C
 * of elastodyn: the NE-PVP driver (formulations/nepvp/driver.py) and the FFRF kernel
 * (formulations/ffrf/kernel.c). One implementation for both; a source uses it by the
 * line  #include "dense_lu.h" , which elastodyn.symbolic.compiled.inline_headers
 * replaces by this text before the source is hashed and compiled (so the cache key of
 * every library built from it changes with this file).
 *
 * The algorithm is Gaussian elimination with partial pivoting, P A = L U (Golub & Van
 * Loan, Matrix Computations, 4th ed., section 3.4), with the choices of LAPACK's
 * getf2 and getrs (Anderson et al., LAPACK Users' Guide, 3rd ed., 1999): the pivot of
 * column k is the first row of largest |a_ik|, i >= k (idamax), so the interchanges are
 * LAPACK's; the multipliers are scaled by the reciprocal of the pivot; the solve applies
 * all the row interchanges first, then the unit lower triangle, then the upper
 * triangle with a division by each diagonal entry. The sums run row by row (LAPACK's
 * blocked and recursive kernels order them otherwise: the factors agree to round-off).
 * Row-major storage, the factors overwrite a.
 */
#ifndef ELASTODYN_DENSE_LU_H
#define ELASTODYN_DENSE_LU_H

#include <math.h>

/* P A = L U of the n x n row-major matrix a, in place (L's unit diagonal not stored);
 * piv[k]: the row interchanged with row k at step k. Returns 0, or k + 1 when column k
 * has no non-zero pivot (|a_ik| = 0 for all i >= k, or NaN): a exactly singular to the
 * factorization, as LAPACK's info > 0. */
static int dense_lu_factor(int n, double *a, int *piv)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        double big = fabs(a[k * n + k]);
        for (int i = k + 1; i < n; ++i)
            if (fabs(a[i * n + k]) > big) { big = fabs(a[i * n + k]); p = i; }
        piv[k] = p;
        if (!(big > 0.0)) return k + 1;
        if (p != k)
            for (int j = 0; j < n; ++j) {
                double t = a[k * n + j]; a[k * n + j] = a[p * n + j]; a[p * n + j] = t;
            }
        const double inv = 1.0 / a[k * n + k];
        for (int i = k + 1; i < n; ++i) {
            const double f = (a[i * n + k] *= inv);
            if (f != 0.0)
                for (int j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
        }
    }
    return 0;
}

/* Solve A X = B with the factors of dense_lu_factor for m right-hand sides: b (n x m,
 * row-major) in, X out. */
static void dense_lu_solve(int n, const double *a, const int *piv, double *b, int m)
{
    for (int k = 0; k < n; ++k)                 /* the interchanges, in order */
        if (piv[k] != k)
            for (int j = 0; j < m; ++j) {
                double t = b[k * m + j]; b[k * m + j] = b[piv[k] * m + j];
                b[piv[k] * m + j] = t;
            }
    for (int i = 1; i < n; ++i)                 /* L y = P b */
        for (int k = 0; k < i; ++k) {
            const double f = a[i * n + k];
            if (f != 0.0)
                for (int j = 0; j < m; ++j) b[i * m + j] -= f * b[k * m + j];
        }
    for (int i = n - 1; i >= 0; --i) {         /* U x = y */
        for (int k = i + 1; k < n; ++k) {
            const double f = a[i * n + k];
            if (f != 0.0)
                for (int j = 0; j < m; ++j) b[i * m + j] -= f * b[k * m + j];
        }
        const double d = a[i * n + i];
        for (int j = 0; j < m; ++j) b[i * m + j] /= d;
    }
}

#endif /* ELASTODYN_DENSE_LU_H */
