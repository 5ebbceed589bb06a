"""Compiled motion-driven simulation of an NE-PVP model (Briot & Khalil 2013, section V).

One C file holds the generated programs of the model (closure, inverse, kinematics and
model problems, :class:`~elastodyn.formulations.nepvp.engine.NEPVPEngine`) and a small
hand-written driver around them:

* ``close_loop``: Newton on the closure residual h(q_a, q_p, e) = 0 for the passive
  joints (Briot eq. 31), from the previous solution, dense LU with partial pivoting of
  D = dh/dq_p (``symbolic/dense_lu.h``, the LU of the FFRF kernel too), until
  max |h| < 1e-12 (m, rad);
* ``rk4``: the classical fourth-order Runge-Kutta method on x = (e, e_d),
  x_d = (e_d, e_dd(q, e, q_a_d, e_d, q_a_dd)) with e_dd from the inverse problem (eq. 38
  solved for the elastic accelerations), on a given time grid; the prescribed actuated
  motion is passed per step at the three stage times (start, middle, end), the start
  as a right limit and the end as a left limit so that a jump of the acceleration at a
  grid point (bang-bang switch) is seen on its own side by each step;
* ``galpha``: the generalized-alpha method (Chung & Hulbert 1993) in the form of
  Arnold & Bruels (2007, eqs. (9)-(11)): the loop of
  :func:`~elastodyn.integrators.nonlinear.generalized_alpha_nonlinear` written in C for
  speed (no Python call per residual), with the parameters of
  :func:`~elastodyn.integrators.scheme.generalized_alpha_parameters` passed in (``par``)
  and the predictor, corrector and acceleration relation of
  :class:`~elastodyn.integrators.scheme.GeneralizedAlphaScheme` written out (``xt``,
  ``vt``: its ``start``; ``apre + cc z``: ``algorithmic``; ``bp = h^2 beta cc``: its
  ``beta_p``; the one other difference is the Newton start, below), on the elastic rows
  of eq. (38) at the end of every step:

      r(e, e_d, e_dd) = M_ee e_dd + M_ea q_a_dd + c_e = 0

  (M, c of the generated model problem at the closed joints q(q_a, e); the product
  M_ee e_dd over the structural nonzeros of M_ee only, the entries of the generated M
  that are not the constant 0, listed at generation: 860 of 2304 at 8 elements per
  beam). Modified Newton: iteration matrix S = M_ee + beta' K_ee with K_ee the beams'
  linear elastic stiffness, factorized at the first iterate of every step and again
  when the corrections stop shrinking (as the Python scheme). The factorization is an
  envelope Cholesky (S is symmetric positive definite) in an order that puts the rows
  of S with more than twice the median count of nonzeros last (on the five-bar the
  end coordinates of each beam's last element, coupled to all through the closure):
  the envelope then holds the beams' bands and that border only (508 of the 1176
  entries of the lower triangle, 2.7e3 multiply-adds against 1.8e4 for a dense
  Cholesky at 8 elements); dense LU with partial pivoting if a pivot is not positive.
  Decision: S is refreshed at every step, not kept across steps: kept (refreshed on
  stall or a change of beta' only), the five-bar needed 2.6 instead of 2.0
  iterations per step at 8 elements and, worse, the converged solution moved away
  from a tightly converged one (3.3e-5 against 5.8e-8 on e, 2 elements, 0.1 s): with a
  slowly contracting iteration the last-correction test stops early (measured,
  tests/formulations/nepvp/test_nepvp_implicit.py). Predictor: the first iterate of e_dd at
  t_{n+1} is
  the quadratic extrapolation 3 (z_n - z_{n-1}) + z_{n-2} of the last three solutions
  (linear after a restart, z_n at a restart; equal steps assumed: on an uneven step it
  is a worse guess, never a different solution), where the Python scheme takes z_n:
  the first correction is then mostly within the tolerance, so that one residual per
  step suffices. Measured on the five-bar, 1 s at 3.125e-5 s: 1.96 -> 1.00 residuals
  per step at 4 elements per beam, 2.01 -> 1.56 at 8, and a solution closer to the
  tightly converged one (1.7e-11 against 5.8e-8 on e, 2 elements, 0.1 s; the platform
  position moves by 2e-11 m). Decision: K_ee is the stiff part
  of dr/de (the axial and bending stiffness that sets the explicit step); what S leaves
  out, gamma' dc_e/de_d (gyroscopic) and beta' (dc_e/de - K_ee) (centrifugal, gravity
  through the closure, geometric stiffening), is small against M_ee + beta' K_ee at
  steps that resolve the bending modes, so the iterations contract fast (2 per step on
  the five-bar, measured) without the n_e extra evaluations of a difference Jacobian.
  Convergence, as the Python scheme: max_i beta' |dz_i| / (atol + rtol |e_i|) <= 1, the
  position correction of the last iteration; defaults atol = 1e-9 (m or rad), rtol =
  1e-7. Why: the discretization error of the platform position is 3e-7 m at the default
  step and 2e-8 m at 1.25e-5 s (five-bar), so the iteration error stays 1 to 2 orders
  below it at every step used (measured: the platform error is unchanged to 4 digits
  from atol 1e-10 to 1e-8, while the evaluations drop from 45 728 to 30 011 at 4
  elements per beam, with the constant predictor z_n; 1e-9 keeps a margin for finer
  steps: 40 335, 37 437 with the extrapolating predictor below). The
  scheme restarts (a = e_dd from the equations at the right limit, as at t_0) at the
  first step and at every step starting at a switch time, where the prescribed
  acceleration jumps; the step is then second order on each smooth piece;
* ``outputs``: at given samples, the closed joint vector, the actuator efforts, the
  platform twist and position, and the rigid model along the same actuated motion
  (e = 0: efforts M_aa q_a_dd + c_a and twist).

The whole simulation then runs in C: no Python call per right-hand side. The Python
path of :mod:`elastodyn.formulations.nepvp.simulation` (DOP853, adaptive) is the independent check.

The library holds the problems the driver uses too (model, inverse, closure, kinematics:
:attr:`MotionDriver.programs`), compiled as four translation units in parallel, and is
cached by
:func:`~elastodyn.symbolic.compiled.cached_library` under the SHA-256 of the robot's
canonical description (:meth:`~elastodyn.description.tree.TreeRobot.canonical_json`,
which holds the discretization options: elements, shapes, modes, stiffening) and of
the package's source (:func:`code_digest`): a second process loads it with its
metadata (sizes, names) and generates, prints and compiles nothing.

References: J. Chung and G. M. Hulbert, J. Appl. Mech. 60:371-375, 1993; M. Arnold and
O. Bruels, Multibody Syst. Dyn. 18:185-202, 2007.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import re
from pathlib import Path

import numpy as np

from ...exceptions import ModelError
from ...integrators.scheme import generalized_alpha_parameters
from ...symbolic.compiled import CompiledProgram, cached_library

__all__ = ["MotionDriver", "code_digest", "driver_key", "program_library", "PROGRAMS"]

PROGRAMS = ("model", "inverse", "closure", "kinematics")
"""The problems of :data:`~elastodyn.formulations.nepvp.engine.PROBLEMS` in the driver's
library; ``direct`` (the largest program, unused by the driver: at 8 elements per beam
it took 50 of the 65 s of the optimizing compile) gets a cached library of its own,
built on first use (:func:`program_library`)."""

_DRIVER = r"""
/* ---- driver (elastodyn.formulations.nepvp.driver) ---- */
#include <string.h>
#include <stdlib.h>
#define NA {na}
#define NE {ne}
#define NJ {nj}
#define NP {np_}
#define NN (NA + NE)
#define NQDP {nqdp}
#define NT {nt}
#define NX {nx}
static const int ACT[NA] = {{{act}}};
#if NP > 0
static const int PAS[NP] = {{{pas}}};
#endif

/* dense_lu_factor, dense_lu_solve: the LU with partial pivoting shared with the FFRF
   kernel (symbolic/dense_lu.h, inlined by elastodyn.symbolic.compiled.inline_headers) */
#include "dense_lu.h"

/* q (NJ): in, the guess of the passive joints; out, the closed joint vector. */
static int close_loop(const double *qa, const double *e, double *q)
{{
    for (int i = 0; i < NA; i++) q[ACT[i]] = qa[i];
#if NP == 0
    (void)e;
    return 0;                   /* one leg: no closure */
#else
    double h[NP], D[NP * NP];
    int piv[NP];
    for (int it = 0; it < 50; it++) {{
        {closure}(q, e, h, D);
        double r = 0.0;
        for (int i = 0; i < NP; i++) r = fmax(r, fabs(h[i]));
        if (r < 1e-12) return 0;
        if (!(r < 1e3) || dense_lu_factor(NP, D, piv)) return 1;
        dense_lu_solve(NP, D, piv, h, 1);
        for (int i = 0; i < NP; i++) q[PAS[i]] -= h[i];
    }}
    return 1;
#endif
}}

/* s: [q_a, q_a_d, q_a_dd] (3 NA); x: [e, e_d] (2 NE); dx: its derivative. */
static int rhs(const double *s, const double *x, double *q, double *dx)
{{
    double tau[NA];
    if (close_loop(s, x, q)) return 1;
    {inverse}(q, x, s + NA, x + NE, s + 2 * NA, tau, dx + NE);
    for (int i = 0; i < NE; i++) dx[i] = x[NE + i];
    return 0;
}}

/* nsteps steps on the grid t (nsteps + 1); traj (nsteps, 3 stages, 3 NA); X (nsteps + 1,
   2 NE) with X[0] the initial state; q (NJ) the closed joints at X[0] (in), at the end
   (out). Returns 0, or the number of the step that failed (loop not closed). */
int {name}_rk4(int nsteps, const double *t, const double *traj, double *X, double *q)
{{
    double k1[2 * NE], k2[2 * NE], k3[2 * NE], k4[2 * NE], xs[2 * NE];
    for (int n = 0; n < nsteps; n++) {{
        const double h = t[n + 1] - t[n];
        const double *s = traj + (long)n * 9 * NA;
        const double *x0 = X + (long)n * 2 * NE;
        double *x1 = X + (long)(n + 1) * 2 * NE;
        if (rhs(s, x0, q, k1)) return n + 1;
        for (int i = 0; i < 2 * NE; i++) xs[i] = x0[i] + 0.5 * h * k1[i];
        if (rhs(s + 3 * NA, xs, q, k2)) return n + 1;
        for (int i = 0; i < 2 * NE; i++) xs[i] = x0[i] + 0.5 * h * k2[i];
        if (rhs(s + 3 * NA, xs, q, k3)) return n + 1;
        for (int i = 0; i < 2 * NE; i++) xs[i] = x0[i] + h * k3[i];
        if (rhs(s + 6 * NA, xs, q, k4)) return n + 1;
        for (int i = 0; i < 2 * NE; i++)
            x1[i] = x0[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }}
    return 0;
}}

/* sum_k a[k] b[k], four partial sums (independent chains) */
static inline double dot(int n, const double *a, const double *b)
{{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {{
        s0 += a[k] * b[k]; s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2]; s3 += a[k + 3] * b[k + 3];
    }}
    for (; k < n; k++) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}}

/* Envelope Cholesky A = L L^T (row i of L from column f[i]: no fill outside the
   envelope), rows of the lower triangle of A (n, n) in place, d (n) out: 1 / L_ii (a
   product, not a division, on the chain from one entry to the next); 1 if a pivot is
   not positive. */
static int env_chol(int n, const int *f, double *A, double *d)
{{
    /* column by column: the diagonal of column j from row j, then the entries of
       column j in the rows below whose envelope reaches it; these are independent of
       each other (no chain of dependent dot products) */
    for (int j = 0; j < n; j++) {{
        const double *Aj = A + (long)j * n;
        const double s = Aj[j] - dot(j - f[j], Aj + f[j], Aj + f[j]);
        if (!(s > 0.0)) return 1;
        A[(long)j * n + j] = sqrt(s);
        const double dj = d[j] = 1.0 / sqrt(s);
        for (int i = j + 1; i < n; i++) {{
            if (f[i] > j) continue;
            double *Ai = A + (long)i * n;
            const int k0 = f[i] > f[j] ? f[i] : f[j];
            Ai[j] = (Ai[j] - dot(j - k0, Ai + k0, Aj + k0)) * dj;
        }}
    }}
    return 0;
}}

static void env_apply(int n, const int *f, const double *A, const double *d, double *b)
{{
    for (int i = 0; i < n; i++)                     /* L y = b */
        b[i] = (b[i] - dot(i - f[i], A + (long)i * n + f[i], b + f[i])) * d[i];
    for (int i = n - 1; i >= 0; i--) {{               /* L^T x = y, by columns of L^T */
        const double *Ai = A + (long)i * n;
        const double x = b[i] * d[i];
        b[i] = x;
        for (int k = f[i]; k < i; k++) b[k] -= Ai[k] * x;
    }}
}}

/* The iteration matrix S = M_ee + bp K_ee in the order perm (S[i][k] = that of perm[i],
   perm[k]) within the envelope f, factorized by env_chol; when that fails (not positive
   definite), all of S in the original order by LU with partial pivoting (*lu = 1).
   d (NE): 1 / L_ii. 1 if both fail. */
static int iteration_matrix(const double *M, const double *K, double bp, const int *perm,
                            const int *f, double *S, double *d, int *piv, int *lu)
{{
    for (int i = 0; i < NE; i++)
        for (int k = f[i]; k <= i; k++)
            S[i * NE + k] = M[(NA + perm[i]) * NN + NA + perm[k]]
                            + bp * K[perm[i] * NE + perm[k]];
    *lu = 0;
    if (!env_chol(NE, f, S, d)) return 0;
    for (int i = 0; i < NE; i++)
        for (int k = 0; k < NE; k++)
            S[i * NE + k] = M[(NA + i) * NN + NA + k] + bp * K[i * NE + k];
    *lu = 1;
    return dense_lu_factor(NE, S, piv);
}}

static void iteration_apply(const double *S, const double *d, const int *piv, int lu,
                            const int *perm, const int *f, double *r)
{{
    double y[NE];
    if (lu) {{ dense_lu_solve(NE, S, piv, r, 1); return; }}
    for (int i = 0; i < NE; i++) y[i] = r[perm[i]];
    env_apply(NE, f, S, d, y);
    for (int i = 0; i < NE; i++) r[perm[i]] = y[i];
}}

/* Elastic rows of eq. (38) at s = [q_a, q_a_d, q_a_dd], x = [e, e_d], z = e_dd:
   r = M_ee z + M_ea q_a_dd + c_e; M (NN, NN) out; q the closed joints (guess in/out).
   M_ee z over the structural nonzeros of M_ee only: row i's columns cols[rows[i]] ..
   cols[rows[i + 1] - 1] (the entries of the generated M that are not the constant 0). */
static int elastic_residual(const double *s, const double *x, const double *z, double *q,
                            const int *rows, const int *cols, double *M, double *c,
                            double *r)
{{
    if (close_loop(s, x, q)) return 1;
    {model}(q, x, s + NA, x + NE, M, c);
    for (int i = 0; i < NE; i++) {{
        const double *Mi = M + (long)(NA + i) * NN;
        double f = c[NA + i];
        for (int j = 0; j < NA; j++) f += Mi[j] * s[2 * NA + j];
        for (int p = rows[i]; p < rows[i + 1]; p++) f += Mi[NA + cols[p]] * z[cols[p]];
        r[i] = f;
    }}
    return 0;
}}

/* Generalized-alpha (module docstring) on the grid t (nsteps + 1); traj as rk4 (the
   start and end stages are used); restart (nsteps): 1 where the scheme restarts; K
   (NE, NE) the elastic stiffness; rows, cols: the structural nonzeros of M_ee
   (elastic_residual); perm, fst: order and envelope of S (iteration_matrix);
   par = [alpha_m, alpha_f, beta, gamma, atol, rtol]; X (nsteps + 1, 2 NE) with X[0]
   the initial state; Z (nsteps + 1, NE) out: e_dd; its (nsteps) out: Newton
   iterations; nfactor out: factorizations of S; q (NJ) the closed joints (in/out).
   Returns 0, the number n of the failing step (loop not closed), or -n (Newton
   failed). */
int {name}_galpha(int nsteps, const double *t, const double *traj, const int *restart,
                  const double *K, const int *rows, const int *cols, const int *perm,
                  const int *fst, const double *par,
                  int maxit, double *X, double *Z, int *its, int *nfactor, double *q)
{{
    const double am = par[0], af = par[1], be = par[2], ga = par[3];
    const double atol = par[4], rtol = par[5];
    const double cm = 1.0 - am, cf = 1.0 - af, cc = cf / cm;
    double *M = malloc(sizeof(double) * NN * NN), *S = malloc(sizeof(double) * NE * NE);
    int *piv = malloc(sizeof(int) * NE), lu = 0;
    double dinv[NE], a[NE], xt[NE], vt[NE], apre[NE], zk[NE], xk[2 * NE], r[NE], c[NN];
    int rc = 0, nfact = 0;
    if (!M || !S || !piv) {{ rc = -1; goto done; }}
    for (int n = 0; n < nsteps; n++) {{
        const double h = t[n + 1] - t[n];
        const double *s0 = traj + (long)n * 9 * NA, *s1 = s0 + 6 * NA;
        const double *x = X + (long)n * 2 * NE;
        double *z = Z + (long)n * NE;
        const double bp = h * h * be * cc;
        if (restart[n]) {{            /* e_dd at t_n+ from the equations; a = e_dd */
            for (int i = 0; i < NE; i++) zk[i] = 0.0;
            if (elastic_residual(s0, x, zk, q, rows, cols, M, c, r)) {{
                rc = n + 1; goto done;
            }}
            for (int i = 0; i < NE; i++)
                for (int k = 0; k < NE; k++) S[i * NE + k] = M[(NA + i) * NN + NA + k];
            if (dense_lu_factor(NE, S, piv)) {{ rc = -(n + 1); goto done; }}
            dense_lu_solve(NE, S, piv, r, 1);
            for (int i = 0; i < NE; i++) a[i] = z[i] = -r[i];
        }}
        for (int i = 0; i < NE; i++) {{
            xt[i] = x[i] + h * x[NE + i] + h * h * (0.5 - be) * a[i];
            vt[i] = x[NE + i] + h * (1.0 - ga) * a[i];
            apre[i] = (af * z[i] - am * a[i]) / cm;
            zk[i] = z[i];
        }}
        /* predictor (module docstring): extrapolation of e_dd on the current piece */
        if (n > 1 && !restart[n] && !restart[n - 1])
            for (int i = 0; i < NE; i++) zk[i] = 3.0 * (z[i] - z[i - NE]) + z[i - 2 * NE];
        else if (n > 0 && !restart[n])
            for (int i = 0; i < NE; i++) zk[i] = 2.0 * z[i] - z[i - NE];
        int it = 0;
        double size = 0.0, last = INFINITY;
        for (;;) {{
            for (int i = 0; i < NE; i++) {{
                const double an = apre[i] + cc * zk[i];
                xk[i] = xt[i] + be * h * h * an;
                xk[NE + i] = vt[i] + ga * h * an;
            }}
            if (elastic_residual(s1, xk, zk, q, rows, cols, M, c, r)) {{
                rc = n + 1; goto done;
            }}
            /* refresh rule (module docstring): at the first iterate of every step
               and when the corrections stall */
            if (it == 0 || (it > 2 && size > 0.5 * last)) {{
                if (iteration_matrix(M, K, bp, perm, fst, S, dinv, piv, &lu)) {{
                    rc = -(n + 1); goto done;
                }}
                nfact++;
            }}
            if (it > 0) last = size;
            iteration_apply(S, dinv, piv, lu, perm, fst, r);
            size = 0.0;
            for (int i = 0; i < NE; i++) {{
                zk[i] -= r[i];
                const double d = fabs(bp * r[i]) / (atol + rtol * fabs(xk[i]));
                size = d > size ? d : size;
            }}
            it++;
            if (!isfinite(size)) {{ rc = -(n + 1); goto done; }}
            if (size <= 1.0) break;
            if (it >= maxit) {{ rc = -(n + 1); goto done; }}
        }}
        double *x1 = X + (long)(n + 1) * 2 * NE, *z1 = Z + (long)(n + 1) * NE;
        for (int i = 0; i < NE; i++) {{
            const double an = apre[i] + cc * zk[i];
            x1[i] = xt[i] + be * h * h * an;
            x1[NE + i] = vt[i] + ga * h * an;
            z1[i] = zk[i];
            a[i] = an;
        }}
        its[n] = it;
    }}
done:
    *nfactor = nfact;
    free(M); free(S); free(piv);
    return rc;
}}

/* n samples: traj (n, 3 NA), X (n, 2 NE); q, qr (NJ) guesses of the flexible and rigid
   closures (in/out). Out: Q (n, NJ), TAU (n, NA), TP (n, NT), XP (n, NX), RTAU (n, NA),
   RTP (n, NT), RXP (n, NX). Returns 0 or the number of the failing sample. */
int {name}_outputs(int n, const double *traj, const double *X, double *q, double *qr,
                   double *Q, double *TAU, double *TP, double *XP, double *RTAU,
                   double *RTP, double *RXP)
{{
    double zero[2 * NE], qdp[NQDP], M[NN * NN], c[NN], edd[NE];
    memset(zero, 0, sizeof zero);
    for (int k = 0; k < n; k++) {{
        const double *s = traj + (long)k * 3 * NA, *x = X + (long)k * 2 * NE;
        if (close_loop(s, x, q)) return k + 1;
        memcpy(Q + (long)k * NJ, q, sizeof(double) * NJ);
        {inverse}(q, x, s + NA, x + NE, s + 2 * NA, TAU + (long)k * NA, edd);
        {kinematics}(q, x, s + NA, x + NE, qdp, TP + (long)k * NT, XP + (long)k * NX);
        if (close_loop(s, zero, qr)) return k + 1;
        {model}(qr, zero, s + NA, zero, M, c);
        for (int i = 0; i < NA; i++) {{
            double f = c[i];
            for (int j = 0; j < NA; j++) f += M[i * NN + j] * s[2 * NA + j];
            RTAU[(long)k * NA + i] = f;
        }}
        {kinematics}(qr, zero, s + NA, zero, qdp, RTP + (long)k * NT, RXP + (long)k * NX);
    }}
    return 0;
}}
"""


def _ptr(a: np.ndarray):
    return ctypes.c_void_p(a.ctypes.data)


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of every Python and C source and header of the installed elastodyn package
    (relative paths and contents, sorted): a change to any code that could change a
    generated program changes the cache key (cheap: a few milliseconds)."""
    root = Path(__file__).resolve().parents[2]       # the elastodyn package
    h = hashlib.sha256()
    for f in sorted(p for ext in ("*.py", "*.c", "*.h") for p in root.rglob(ext)):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _signature(text: str, name: str) -> str:
    """The prototype of function ``name`` in printed C ``text``."""
    m = re.search(rf"^void {re.escape(name)}\(.*\)$", text, re.M)
    if m is None:
        raise ModelError(f"no function {name} in the printed program")
    return m.group(0) + ";"


def _describe(p) -> dict:
    """Metadata of a program: function name, input sizes, output shapes."""
    return {"function": p.name, "inputs": {g: len(v) for g, v in p.inputs.items()},
            "outputs": {g: [m.rows, m.cols] for g, m in p.outputs.items()}}


def program_library(model, problem: str):
    """CompiledProgram of one ``problem`` of ``model`` in a library of its own, cached
    under the hash of the robot, the problem and the code (as the driver); None without
    a C compiler."""
    key = hashlib.sha256(("nepvp-program\0" + problem + "\0" + model.robot.canonical_json()
                          + "\0" + code_digest()).encode()).hexdigest()

    def build():
        from ...symbolic.printers import print_program
        p = model.program(problem)
        return print_program(p, "c"), _describe(p)
    res = cached_library(key, build, prefix=f"elastodyn_nepvp_{problem}")
    if res is None:
        return None
    lib, d, _ = res
    return CompiledProgram.from_library(lib, d["function"], d["inputs"], d["outputs"])


def driver_key(robot) -> str:
    """Cache key of the compiled driver of ``robot`` (a TreeRobot): SHA-256 of its
    canonical description and :func:`code_digest`."""
    return hashlib.sha256(("nepvp-driver\0" + robot.canonical_json() + "\0" +
                           code_digest()).encode()).hexdigest()


class MotionDriver:
    """The compiled motion-driven simulation of ``model`` (module docstring).

    ``available`` is False when no C compiler is found; the caller then uses the Python
    path. ``cache_hit``: the library came from the cache (nothing was generated);
    ``programs``: {problem: CompiledProgram} of :data:`PROGRAMS` in the same library.
    """

    def __init__(self, model):
        self.model = model
        res = cached_library(driver_key(model.robot), lambda: self._generate(model),
                             prefix="elastodyn_nepvp")
        self.available = res is not None
        self.cache_hit = False
        self.programs: dict = {}
        if not self.available:
            return
        lib, meta, self.cache_hit = res
        if (meta["na"], meta["ne"], meta["nj"]) != (model.na, model.ne, model.n_joints):
            raise ModelError("the cached driver does not match the model's sizes")
        self.name, self.nt, self.nx = meta["name"], meta["nt"], meta["nx"]
        self._mee_nonzero = meta["mee_nonzero"]
        self._patterns = None
        self.programs = {k: CompiledProgram.from_library(lib, d["function"], d["inputs"],
                                                         d["outputs"])
                         for k, d in meta["programs"].items()}
        self._lib = lib
        self._rk4 = getattr(lib, f"{self.name}_rk4")
        self._galpha = getattr(lib, f"{self.name}_galpha")
        self._out = getattr(lib, f"{self.name}_outputs")
        self._rk4.restype = self._out.restype = self._galpha.restype = ctypes.c_int

    @staticmethod
    def _generate(model):
        """(C source, metadata) of the library: every program of :data:`PROGRAMS`
        (generated symbolically on this call) and the driver."""
        from ...symbolic.printers import print_program
        progs = {k: model.program(k) for k in PROGRAMS}
        kin = progs["kinematics"].outputs
        na, ne, npas = model.na, model.ne, len(model.passive)
        if progs["closure"].outputs["h"].rows != npas:
            raise ModelError("the compiled driver needs as many closure equations as "
                             "passive joints (an isostatic robot)")
        name = progs["model"].name.rsplit("_model", 1)[0]
        nt, nx = kin["tp"].rows, kin["xp"].rows
        driver = _DRIVER.format(
            na=na, ne=ne, nj=model.n_joints, np_=npas, nqdp=kin["qd_p"].rows, nt=nt,
            nx=nx, act=", ".join(map(str, model.actuated)),
            pas=", ".join(map(str, model.passive)), name=name,
            **{k: progs[k].name for k in ("closure", "inverse", "kinematics", "model")})
        texts = {k: print_program(p, "c") for k, p in progs.items()}
        protos = "\n".join(_signature(texts[k], p.name) for k, p in progs.items())
        # four translation units compiled in parallel: the two large programs alone
        source = [texts["model"], texts["inverse"],
                  texts["closure"] + "\n" + texts["kinematics"],
                  "#include <math.h>\n" + protos + "\n" + driver]
        Mo = progs["model"].outputs["M"]
        meta = {"name": name, "nt": nt, "nx": nx, "na": na, "ne": ne,
                "nj": model.n_joints,
                "mee_nonzero": [[k for k in range(ne) if Mo[na + i, na + k] != 0]
                                for i in range(ne)],
                "programs": {k: _describe(p) for k, p in progs.items()}}
        return source, meta

    @staticmethod
    def stage_samples(trajectory, t: np.ndarray, middle: bool = True) -> np.ndarray:
        """(nsteps, 3, 3 n_a): [q_a, q_a_d, q_a_dd] at the start, middle and end of every
        step of the grid t. The start is taken one float above (right limit) and the end
        one float below (left limit): a trajectory returns at a switch time the
        acceleration of one side only (e.g. ``BangBang`` gives -a at t_f where the rest
        after t_f has 0), and each step must see the side it lies on. middle=False: the
        middle stage is not evaluated (NaN; generalized-alpha uses start and end only)."""
        t = np.asarray(t, dtype=float)
        a, b = t[:-1], t[1:]
        stages = [np.nextafter(a, np.inf), np.nextafter(b, -np.inf)]
        if middle:
            stages.insert(1, 0.5 * (a + b))
        s = trajectory.evaluate(np.stack(stages, axis=1).ravel())
        v = np.hstack([s.position, s.velocity, s.acceleration]).reshape(len(a), len(stages),
                                                                         -1)
        if middle:
            return np.ascontiguousarray(v)
        out = np.full((len(a), 3, v.shape[2]), np.nan)
        out[:, 0], out[:, 2] = v[:, 0], v[:, 1]
        return out

    def rk4(self, t, trajectory, x0, q0):
        """States X (len(t), 2 n_e) on the grid t from x0 = (e, e_d) with the closed
        joints q0, and the closed joints at the end."""
        t = np.ascontiguousarray(t, dtype=float)
        traj = self.stage_samples(trajectory, t)
        X = np.zeros((len(t), 2 * self.model.ne))
        X[0] = x0
        q = np.array(q0, dtype=float)
        rc = self._rk4(ctypes.c_int(len(t) - 1), _ptr(t), _ptr(traj), _ptr(X), _ptr(q))
        if rc:
            raise ModelError(f"loop closure failed in the step starting at t = "
                             f"{t[rc - 1]:.6g} s (out of the workspace or a diverging "
                             f"elastic response)")
        return X, q

    def patterns(self):
        """(rows, cols, perm, first), int arrays: the structural nonzeros of M_ee in
        compressed rows (row i's columns cols[rows[i]:rows[i + 1]], (n_e + 1,) and
        (nnz,): the entries of the generated M that are not the constant 0), used by the
        residual's product M_ee e_dd; and the order perm (n_e,) and envelope first
        (n_e,) of the Cholesky factorization of the iteration matrix
        S = M_ee + beta' K_ee.

        Order: the rows of S with more than twice the median count of nonzeros last
        (on the five-bar, the end coordinates of each beam's last element, coupled to
        all through the closure), the others in their order (the beams' bands), so the
        envelope holds the bands and the dense border only; first[i], the first column
        of row i within the envelope of the reordered pattern (no fill outside it)."""
        if self._patterns is None:
            ne = self.model.ne
            nz = np.zeros((ne, ne), dtype=bool)
            for i, ks in enumerate(self._mee_nonzero):
                nz[i, ks] = True
            rows = np.concatenate([[0], np.cumsum(nz.sum(axis=1))])
            cols = np.concatenate([np.flatnonzero(r) for r in nz] + [np.zeros(0, int)])
            s = nz | (np.asarray(self.model.stiffness) != 0)
            s |= s.T
            count = s.sum(axis=1)
            dense = count > 2 * np.median(count)
            perm = np.concatenate([np.flatnonzero(~dense), np.flatnonzero(dense)])
            p = s[np.ix_(perm, perm)] | np.eye(ne, dtype=bool)
            first = np.array([np.flatnonzero(p[i, :i + 1])[0] for i in range(ne)])
            self._patterns = tuple(np.ascontiguousarray(a, dtype=np.intc)
                                   for a in (rows, cols, perm, first))
        return self._patterns

    def galpha(self, t, trajectory, x0, q0, *, restart=(), rho_inf: float = 0.8,
               atol: float = 1e-9, rtol: float = 1e-7, max_iter: int = 20):
        """Generalized-alpha (module docstring) on the grid t (nsteps + 1,) [s] from
        x0 = (e, e_d) with the closed joints q0 (n_joints,). The C loop receives
        alpha_m, alpha_f, beta, gamma of
        :func:`~elastodyn.integrators.scheme.generalized_alpha_parameters`; it writes
        the formulas of :class:`~elastodyn.integrators.scheme.GeneralizedAlphaScheme`.

        restart : indices of grid points where the prescribed acceleration jumps (the
            scheme restarts there; it always does at t[0]). rho_inf : spectral radius at
            infinite frequency, [0, 1]. atol [m or rad], rtol : Newton tolerance on the
            position corrections. max_iter : Newton iterations per step.

        Returns (X (nsteps + 1, 2 n_e), q at the end (n_joints,), Newton iterations per
        step (nsteps,))."""
        p = generalized_alpha_parameters(rho_inf)
        t = np.ascontiguousarray(t, dtype=float)
        ns = len(t) - 1
        traj = self.stage_samples(trajectory, t, middle=False)
        flags = np.zeros(ns, dtype=np.intc)
        flags[0] = 1
        flags[[k for k in restart if 0 < k < ns]] = 1
        K = np.ascontiguousarray(self.model.stiffness, dtype=float)
        rows, cols, perm, fst = self.patterns()
        par = np.array([p.alpha_m, p.alpha_f, p.beta, p.gamma, atol, rtol])
        ne = self.model.ne
        X = np.zeros((ns + 1, 2 * ne))
        X[0] = x0
        Z = np.zeros((ns + 1, ne))
        its = np.zeros(ns, dtype=np.intc)
        nf = np.zeros(1, dtype=np.intc)
        q = np.array(q0, dtype=float)
        rc = self._galpha(ctypes.c_int(ns), _ptr(t), _ptr(traj), _ptr(flags), _ptr(K),
                          _ptr(rows), _ptr(cols), _ptr(perm), _ptr(fst), _ptr(par),
                          ctypes.c_int(int(max_iter)), _ptr(X), _ptr(Z), _ptr(its),
                          _ptr(nf), _ptr(q))
        if rc > 0:
            raise ModelError(f"loop closure failed in the step starting at t = "
                             f"{t[rc - 1]:.6g} s (out of the workspace or a diverging "
                             f"elastic response)")
        if rc < 0:
            raise ModelError(f"generalized-alpha: Newton did not converge in the step "
                             f"starting at t = {t[-rc - 1]:.6g} s in {max_iter} "
                             f"iterations (reduce the step {t[-rc] - t[-rc - 1]:.3g} s)")
        self.factorizations = int(nf[0])
        return X, q, its

    def outputs(self, trajectory, time, X, q0, qr0) -> dict:
        """Joints, efforts, platform twist and position, flexible and rigid, at ``time``
        (n,) for the states X (n, 2 n_e)."""
        m = self.model
        n = len(time)
        s = trajectory.evaluate(np.asarray(time, dtype=float))
        traj = np.ascontiguousarray(np.hstack([s.position, s.velocity, s.acceleration]))
        X = np.ascontiguousarray(X, dtype=float)
        q, qr = np.array(q0, dtype=float), np.array(qr0, dtype=float)
        out = {"q": np.empty((n, m.n_joints)), "tau": np.empty((n, m.na)),
               "tp": np.empty((n, self.nt)), "xp": np.empty((n, self.nx)),
               "rigid_tau": np.empty((n, m.na)), "rigid_tp": np.empty((n, self.nt)),
               "rigid_xp": np.empty((n, self.nx))}
        rc = self._out(ctypes.c_int(n), _ptr(traj), _ptr(X), _ptr(q), _ptr(qr),
                       *[_ptr(v) for v in out.values()])
        if rc:
            raise ModelError(f"loop closure failed at t = {time[rc - 1]:.6g} s")
        return out
