/* Compiled evaluation of the partitioned FFRF equations of a planar multibody system
 * (elastodyn.formulations.ffrf.multibody; Rosyid & El-Khasawneh 2020).
 *
 * One call does what MultibodySystem.close followed by MultibodySystem.reduced does in
 * NumPy: the loop closure by Newton (eqs. (91)-(94)), the velocity map N (eqs.
 * (95)-(99)), the convective accelerations nu (eqs. (100)-(104)), the body mass matrices
 * (eqs. (16)-(28)), quadratic-velocity and gravity vectors (eqs. (30), (33)), the elastic
 * forces (eqs. (36)-(38)) and the reduced system M_r = N^T M N, c_r = N^T (M nu - Q)
 * (eqs. (105)-(106)). The formulas are those of the NumPy kernels, line for line (see
 * the Python functions named in each comment); tests/formulations/ffrf/test_ffrf_kernel.py
 * checks the two
 * against each other on several mechanisms.
 *
 * The model is packed once by ffrf_multibody._KernelModel into an int array iw and a
 * double array rw whose layout is given by the header below. Real arithmetic only (the
 * complex-step runs use the NumPy path).
 */
#include <math.h>
#include <string.h>

/* iw header */
enum {
    H_N, H_NR, H_NA, H_NE, H_NC, H_NB, H_NM, H_FM, H_NROW,
    H_REF, H_EL, H_BODY, H_MARK, H_ROW,      /* iw offsets of the sections */
    H_RK, H_RG, H_RBODY, H_RMARK, H_RROW,    /* rw offsets of the sections */
    H_SIZE
};

/* ---------------------------------------------------------------- dense LU */
/* dense_lu_factor, dense_lu_solve: the LU with partial pivoting shared with the NE-PVP
 * driver (symbolic/dense_lu.h, inlined by elastodyn.symbolic.compiled.inline_headers
 * before this source is hashed and compiled). */
#include "dense_lu.h"

/* ---------------------------------------------------------------- markers */
/* Marker kinematics (ffrf_multibody._MarkerTable.evaluate): r = R + A (u0 + S q_f),
 * phi = theta + angle + slope q_f, their Jacobians over the marker's columns and, with
 * rates, rd, phid and the quadratic part ar of r_dd. Per marker the work holds
 * r[2] phi Jr[2 * (3 + F)] Jphi[3 + F] rd[2] phid ar[2]. */
#define MSIZE(F) (2 + 1 + 2 * (3 + (F)) + (3 + (F)) + 2 + 1 + 2)

static void markers(const int *iw, const double *rw, const double *qe, const double *qde,
                    double *mk)
{
    const int nm = iw[H_NM], F = iw[H_FM], w = 3 + F;
    const int *cols = iw + iw[H_MARK];
    const double *md = rw + iw[H_RMARK];
    for (int k = 0; k < nm; ++k) {
        const int *c = cols + k * w;
        const double *u0 = md + k * (3 + 3 * F), ang = u0[2];
        const double *S = u0 + 3, *slope = S + 2 * F;
        double *r = mk + k * MSIZE(F), *phi = r + 2, *Jr = phi + 1, *Jphi = Jr + 2 * w;
        double *rd = Jphi + w, *phid = rd + 2, *ar = phid + 1;
        double th = qe[c[2]], cs = cos(th), sn = sin(th);
        double u[2] = {u0[0], u0[1]};
        double ph = th + ang;
        for (int f = 0; f < F; ++f) {
            double qf = qe[c[3 + f]];
            u[0] += S[f] * qf;
            u[1] += S[F + f] * qf;
            ph += slope[f] * qf;
        }
        double Au0 = cs * u[0] - sn * u[1], Au1 = sn * u[0] + cs * u[1];
        r[0] = qe[c[0]] + Au0;
        r[1] = qe[c[1]] + Au1;
        *phi = ph;
        memset(Jr, 0, sizeof(double) * 3 * w);
        Jr[0] = 1.0; Jr[w + 1] = 1.0;
        Jr[2] = -Au1; Jr[w + 2] = Au0;
        Jphi[2] = 1.0;
        for (int f = 0; f < F; ++f) {
            Jr[3 + f] = cs * S[f] - sn * S[F + f];
            Jr[w + 3 + f] = sn * S[f] + cs * S[F + f];
            Jphi[3 + f] = slope[f];
        }
        if (qde) {
            double om = qde[c[2]], v0 = 0.0, v1 = 0.0, pd = 0.0, a0 = 0.0, a1 = 0.0;
            for (int j = 0; j < w; ++j) {
                double gd = qde[c[j]];
                v0 += Jr[j] * gd;
                v1 += Jr[w + j] * gd;
                pd += Jphi[j] * gd;
                if (j >= 3) { a0 += Jr[j] * gd; a1 += Jr[w + j] * gd; }
            }
            rd[0] = v0; rd[1] = v1; *phid = pd;
            /* r_dd = R_dd + A_theta u th_dd + A S qf_dd - A u w^2 + 2 A_theta S qf_d w */
            ar[0] = -Au0 * om * om - 2.0 * om * a1;
            ar[1] = -Au1 * om * om + 2.0 * om * a0;
        }
    }
}

/* ---------------------------------------------------------------- joint rows */
enum { RX, RY, ANG, ACROSS, ALONG };

/* Rows (ffrf_multibody._RowSet.evaluate): values P (nrow), Jacobian J (nrow x n,
 * zeroed here) and, with rates, gamma (nrow). */
static void rows(const int *iw, const double *rw, const double *mk, double *P, double *J,
                 double *gam)
{
    const int n = iw[H_N], F = iw[H_FM], w = 3 + F, nrow = iw[H_NROW];
    const int *rk = iw + iw[H_ROW], *cols = iw + iw[H_MARK];
    const double *c0 = rw + iw[H_RROW];
    if (J) memset(J, 0, sizeof(double) * nrow * n);
    for (int i = 0; i < nrow; ++i) {
        int kind = rk[3 * i], ia = rk[3 * i + 1], ib = rk[3 * i + 2];
        const double *ra = mk + ia * MSIZE(F), *rb = mk + ib * MSIZE(F);
        const double *Jra = ra + 3, *Jpa = Jra + 2 * w, *Jrb = rb + 3, *Jpb = Jrb + 2 * w;
        double pa = ra[2], tx = cos(pa), ty = sin(pa), nx = -ty, ny = tx;
        double dx = rb[0] - ra[0], dy = rb[1] - ra[1];
        double td = tx * dx + ty * dy, nd = nx * dx + ny * dy;
        double val = 0.0, cx = 0.0, cy = 0.0, cp = 0.0, pb = 0.0;
        switch (kind) {
        case RX: val = dx; cx = -1.0; break;
        case RY: val = dy; cy = -1.0; break;
        case ANG: val = rb[2] - pa; cp = -1.0; pb = 1.0; break;
        case ACROSS: val = nd; cx = -nx; cy = -ny; cp = -td; break;
        default: val = td; cx = -tx; cy = -ty; cp = nd; break;
        }
        P[i] = val - c0[i];
        if (J) {
            const int *ca = cols + ia * w, *cb = cols + ib * w;
            double *Ji = J + i * n;
            for (int j = 0; j < w; ++j) {
                if (ca[j] < n) Ji[ca[j]] += cx * Jra[j] + cy * Jra[w + j] + cp * Jpa[j];
                if (cb[j] < n) Ji[cb[j]] += -cx * Jrb[j] - cy * Jrb[w + j] + pb * Jpb[j];
            }
        }
        if (gam) {
            const double *rda = Jpa + w, *rdb = Jpb + w;
            double ddx = rdb[0] - rda[0], ddy = rdb[1] - rda[1];
            double ax = rdb[3] - rda[3], ay = rdb[4] - rda[4], om = rda[2];
            double quad = 0.0;
            switch (kind) {
            case RX: quad = ax; break;
            case RY: quad = ay; break;
            case ANG: quad = 0.0; break;
            case ACROSS:
                quad = -nd * om * om - 2.0 * (tx * ddx + ty * ddy) * om + nx * ax + ny * ay;
                break;
            default:
                quad = tx * ax + ty * ay + 2.0 * (nx * ddx + ny * ddy) * om - td * om * om;
                break;
            }
            gam[i] = -quad;
        }
    }
}

/* ---------------------------------------------------------------- body terms */
/* Mass block Mb ((3 + F)^2, fem.ffrf.planar_mass_blocks) and quadratic-velocity plus
 * gravity vector Qb (3 + F, fem.ffrf.planar_velocity_gravity_blocks) of one body. */
static void body_terms(const double *b, int F, const double *g, const double *gd,
                       const double *grav, double *Mb, double *Qb)
{
    const int w = 3 + F;
    const double mass = b[0], *I1 = b + 1, *Sb = b + 3, Joo = Sb[2 * F];
    const double *Io = Sb + 2 * F + 1, *Jof = Io + F, *Sff = Jof + F, *St = Sff + F * F;
    const double *qf = g + 3, *qfd = gd + 3;
    double th = g[2], om = gd[2], c = cos(th), s = sin(th);
    double first[2] = {I1[0], I1[1]}, Sqd[2] = {0.0, 0.0};
    for (int f = 0; f < F; ++f) {
        first[0] += Sb[f] * qf[f]; first[1] += Sb[F + f] * qf[f];
        Sqd[0] += Sb[f] * qfd[f]; Sqd[1] += Sb[F + f] * qfd[f];
    }
    /* A = [[c, -s], [s, c]], A_theta = [[-s, -c], [c, -s]] */
    double Af0 = c * first[0] - s * first[1], Af1 = s * first[0] + c * first[1];
    double Atf0 = -s * first[0] - c * first[1], Atf1 = c * first[0] - s * first[1];
    double Ats0 = -s * Sqd[0] - c * Sqd[1], Ats1 = c * Sqd[0] - s * Sqd[1];
    memset(Mb, 0, sizeof(double) * w * w);
    Mb[0] = Mb[w + 1] = mass;
    Mb[2] = Mb[2 * w] = Atf0;
    Mb[w + 2] = Mb[2 * w + 1] = Atf1;
    double m22 = Joo;
    for (int f = 0; f < F; ++f) {
        double AS0 = c * Sb[f] - s * Sb[F + f], AS1 = s * Sb[f] + c * Sb[F + f];
        Mb[3 + f] = Mb[(3 + f) * w] = AS0;
        Mb[w + 3 + f] = Mb[(3 + f) * w + 1] = AS1;
        double gv = Io[f], st = 0.0, mt = Jof[f];
        for (int h = 0; h < F; ++h) {
            gv += Sff[f * F + h] * qf[h];
            st += St[f * F + h] * qfd[h];
            mt += qf[h] * St[h * F + f];
            Mb[(3 + f) * w + 3 + h] = Sff[f * F + h];
        }
        m22 += 2.0 * Io[f] * qf[f] + qf[f] * (gv - Io[f]);
        Mb[2 * w + 3 + f] = Mb[(3 + f) * w + 2] = mt;
        Qb[3 + f] = om * om * gv + 2.0 * om * st
                    + grav[0] * AS0 + grav[1] * AS1;
    }
    Mb[2 * w + 2] = m22;
    double q2 = 0.0;
    for (int f = 0; f < F; ++f) {
        double gv = Io[f];
        for (int h = 0; h < F; ++h) gv += Sff[f * F + h] * qf[h];
        q2 += qfd[f] * gv;
    }
    Qb[0] = om * om * Af0 - 2.0 * om * Ats0 + mass * grav[0];
    Qb[1] = om * om * Af1 - 2.0 * om * Ats1 + mass * grav[1];
    Qb[2] = -2.0 * om * q2 + Atf0 * grav[0] + Atf1 * grav[1];
}

/* ---------------------------------------------------------------- entry points */
/* Size of the double work array. */
int ffrf_work_size(const int *iw)
{
    int n = iw[H_N], nr = iw[H_NR], nv = iw[H_NA] + iw[H_NE], F = iw[H_FM];
    int wb = 3 + n;   /* largest body block is at most n wide */
    return 2 * (n + 1) + iw[H_NM] * MSIZE(F) + nr + nr * n + 2 * nr * nr + nr * nv
           + n * nv + 2 * n + 2 * nr + wb * wb + wb + wb * nv + nr * nr;
}

/* Closure and reduced equations.
 *
 * q (n): in, the guess; out, the closed positions (elastic coordinates set to qf).
 * s (na), qf (ne), v (na + ne): actuated and elastic coordinates, independent rates.
 * Outputs: Mr ((na + ne)^2), cr (na + ne), qd (n), Jphi (nr x n, the Jacobian of the
 * constraints and actuated coordinates at the closed q), resid (1, max |C| there),
 * det (3: the sign and scaled magnitude of the dependent Jacobian's determinant and its
 * reciprocal condition number in the 1-norm; see MultibodySystem.dependent_determinant).
 * Returns the closure's Newton iterations (>= 0), -1 when it did not converge in
 * max_iter, -2 when the dependent Jacobian is singular. */
int ffrf_reduced(const int *iw, const double *rw, double *q, const double *s,
                 const double *qf, const double *v, double tol, int max_iter,
                 double *work, int *iwork, double *Mr, double *cr, double *qd,
                 double *Jphi, double *resid, double *det)
{
    const int n = iw[H_N], nr = iw[H_NR], na = iw[H_NA], ne = iw[H_NE], nc = iw[H_NC];
    const int nv = na + ne, nb = iw[H_NB], F = iw[H_FM];
    const int *ref = iw + iw[H_REF], *el = iw + iw[H_EL];
    double *qe = work, *qde = qe + n + 1, *mk = qde + n + 1;
    double *P = mk + iw[H_NM] * MSIZE(F), *J = P + nr, *lu = J + nr * n;
    double *Nref = lu + nr * nr, *N = Nref + nr * nv, *nu = N + n * nv, *Q = nu + n;
    double *gam = Q + n, *tmp = gam + nr, *Mb = tmp + nr;
    double *inv = Mb + (3 + n) * (3 + n + 1 + nv);   /* after the body blocks */
    int *piv = iwork;
    for (int j = 0; j < ne; ++j) q[el[j]] = qf[j];
    int it = 0;
    for (;; ++it) {
        memcpy(qe, q, sizeof(double) * n);
        qe[n] = 0.0;
        markers(iw, rw, qe, NULL, mk);
        rows(iw, rw, mk, P, J, NULL);
        double big = 0.0, cbig = 0.0;
        for (int i = 0; i < nr; ++i) {
            if (i >= nc) P[i] -= s[i - nc];
            double a = isnan(P[i]) ? INFINITY : fabs(P[i]);
            if (a > big) big = a;
            if (i < nc && a > cbig) cbig = a;
        }
        *resid = cbig;
        for (int i = 0; i < nr; ++i)
            for (int j = 0; j < nr; ++j) lu[i * nr + j] = J[i * n + ref[j]];
        if (big < tol) break;
        if (it >= max_iter) return -1;
        if (dense_lu_factor(nr, lu, piv)) return -2;
        for (int i = 0; i < nr; ++i) tmp[i] = -P[i];
        dense_lu_solve(nr, lu, piv, tmp, 1);
        for (int i = 0; i < nr; ++i) q[ref[i]] += tmp[i];
    }
    memcpy(Jphi, J, sizeof(double) * nr * n);
    if (dense_lu_factor(nr, lu, piv)) return -2;
    /* N: rows of the reference coordinates from Jd N_ref = [0; I_na | -J_el] */
    memset(Nref, 0, sizeof(double) * nr * nv);
    for (int i = 0; i < na; ++i) Nref[(nc + i) * nv + i] = 1.0;
    for (int i = 0; i < nr; ++i)
        for (int j = 0; j < ne; ++j) Nref[i * nv + na + j] = -J[i * n + el[j]];
    dense_lu_solve(nr, lu, piv, Nref, nv);
    memset(N, 0, sizeof(double) * n * nv);
    for (int i = 0; i < nr; ++i) memcpy(N + ref[i] * nv, Nref + i * nv, sizeof(double) * nv);
    for (int j = 0; j < ne; ++j) N[el[j] * nv + na + j] = 1.0;
    /* qd = N v, the convective accelerations nu (Jd nu_ref = gamma) */
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < nv; ++j) acc += N[i * nv + j] * v[j];
        qd[i] = acc;
    }
    memcpy(qde, qd, sizeof(double) * n);
    qde[n] = 0.0;
    markers(iw, rw, qe, qde, mk);
    rows(iw, rw, mk, P, NULL, gam);
    dense_lu_solve(nr, lu, piv, gam, 1);
    memset(nu, 0, sizeof(double) * n);
    for (int i = 0; i < nr; ++i) nu[ref[i]] = gam[i];
    /* Q: the elastic forces -K q_f on the elastic coordinates */
    const double *Kel = rw + iw[H_RK];
    memset(Q, 0, sizeof(double) * n);
    for (int i = 0; i < ne; ++i) {
        double acc = 0.0;
        for (int j = 0; j < ne; ++j) acc += Kel[i * ne + j] * qf[j];
        Q[el[i]] = -acc;
    }
    /* M_r = N^T M N and c_r = N^T (M nu - Q), body by body (M block diagonal) */
    memset(Mr, 0, sizeof(double) * nv * nv);
    memset(cr, 0, sizeof(double) * nv);
    for (int i = 0; i < ne; ++i) cr[na + i] = -Q[el[i]];   /* unit rows of N */
    const int *bd = iw + iw[H_BODY];
    const double *grav = rw + iw[H_RG];
    for (int b = 0; b < nb; ++b) {
        const int off = bd[4 * b], Fb = bd[4 * b + 1], w = 3 + Fb, e0 = na + bd[4 * b + 3];
        double *Qb = Mb + w * w, *MN = Qb + w;
        const double *N0 = N + off * nv, *N1 = N0 + nv, *N2 = N1 + nv;
        body_terms(rw + bd[4 * b + 2], Fb, q + off, qd + off, grav, Mb, Qb);
        /* MN = Mb N_b: the reference rows of N_b are full, its elastic rows f the unit
         * rows of the columns e0 + f */
        for (int a = 0; a < w; ++a) {
            const double *Ma = Mb + a * w;
            double *row = MN + a * nv;
            for (int j = 0; j < nv; ++j) row[j] = Ma[0] * N0[j] + Ma[1] * N1[j] + Ma[2] * N2[j];
            for (int f = 0; f < Fb; ++f) row[e0 + f] += Ma[3 + f];
        }
        /* c_b = Mb nu_b - Qb */
        for (int a = 0; a < w; ++a) {
            double acc = -Qb[a];
            for (int r = 0; r < w; ++r) acc += Mb[a * w + r] * nu[off + r];
            Qb[a] = acc;
        }
        /* M_r += N_b^T MN (upper triangle), c_r += N_b^T c_b */
        for (int r = 0; r < 3; ++r) {
            const double *Nr = N0 + r * nv, *MNr = MN + r * nv;
            for (int i = 0; i < nv; ++i) {
                double ni = Nr[i];
                if (ni == 0.0) continue;
                double *Mri = Mr + i * nv;
                for (int j = i; j < nv; ++j) Mri[j] += ni * MNr[j];
                cr[i] += ni * Qb[r];
            }
        }
        for (int f = 0; f < Fb; ++f) {
            const int i = e0 + f;
            const double *MNr = MN + (3 + f) * nv;
            double *Mri = Mr + i * nv;
            for (int j = i; j < nv; ++j) Mri[j] += MNr[j];
            cr[i] += Qb[3 + f];
        }
    }
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < i; ++j) Mr[i * nv + j] = Mr[j * nv + i];
    /* the dependent Jacobian's determinant (sign, |det| / max(1, max |Jd|)^nr) and
     * exact reciprocal condition number in the 1-norm, 1 / (|Jd|_1 |Jd^-1|_1) */
    double sign = 1.0, mag = 1.0, big = 1.0, norm = 0.0, inorm = 0.0;
    for (int i = 0; i < nr; ++i) {
        double d = lu[i * nr + i];
        sign *= (d < 0.0 ? -1.0 : 1.0) * (piv[i] != i ? -1.0 : 1.0);
        mag *= fabs(d);
    }
    for (int j = 0; j < nr; ++j) {
        double col = 0.0;
        for (int i = 0; i < nr; ++i) {
            double a = fabs(Jphi[i * n + ref[j]]);
            col += a;
            if (a > big) big = a;
        }
        if (col > norm) norm = col;
    }
    memset(inv, 0, sizeof(double) * nr * nr);
    for (int i = 0; i < nr; ++i) inv[i * nr + i] = 1.0;
    dense_lu_solve(nr, lu, piv, inv, nr);
    for (int j = 0; j < nr; ++j) {
        double col = 0.0;
        for (int i = 0; i < nr; ++i) col += fabs(inv[i * nr + j]);
        if (col > inorm) inorm = col;
    }
    det[0] = sign;
    det[1] = mag / pow(big, nr);
    det[2] = 1.0 / (norm * inorm);
    return it;
}

/* The same with every array behind one pointer table (fewer ctypes arguments per call:
 * the Python wrapper binds the table once): iw, rw, q, s, qf, v, work, iwork, Mr, cr,
 * qd, Jphi, resid, det. */
int ffrf_reduced_packed(void **p, double tol, int max_iter)
{
    return ffrf_reduced((const int *)p[0], (const double *)p[1], (double *)p[2],
                        (const double *)p[3], (const double *)p[4], (const double *)p[5],
                        tol, max_iter, (double *)p[6], (int *)p[7], (double *)p[8],
                        (double *)p[9], (double *)p[10], (double *)p[11], (double *)p[12],
                        (double *)p[13]);
}
