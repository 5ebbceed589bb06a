"""Compiled motion-driven simulation of an NE-PVP model (Briot & Khalil 2013, section V).

One C file holds the generated programs of the model (closure, inverse, kinematics and
model problems, :class:`~elastodyn.formulations.nepvp_model.NEPVPModel`) and a small
hand-written driver around them:

* ``close_loop``: Newton on the closure residual h(q_a, q_p, e) = 0 for the passive
  joints (Briot eq. 31), from the previous solution, dense LU with partial pivoting of
  D = dh/dq_p, until max |h| < 1e-12 (m, rad);
* ``rk4``: the classical fourth-order Runge-Kutta method on x = (e, e_d),
  x_d = (e_d, e_dd(q, e, q_a_d, e_d, q_a_dd)) with e_dd from the inverse problem (eq. 38
  solved for the elastic accelerations), on a given time grid; the prescribed actuated
  motion is passed per step at the three stage times (start, middle, end), the start
  as a right limit and the end as a left limit so that a jump of the acceleration at a
  grid point (bang-bang switch) is seen on its own side by each step;
* ``outputs``: at given samples, the closed joint vector, the actuator efforts, the
  platform twist and position, and the rigid model along the same actuated motion
  (e = 0: efforts M_aa q_a_dd + c_a and twist).

The whole simulation then runs in C: no Python call per right-hand side. The Python
path of :mod:`elastodyn.analysis.nepvp` (DOP853, adaptive) is the independent check.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..exceptions import ModelError
from ..symbolic.compiled import load_source
from ..symbolic.printers import print_program

__all__ = ["MotionDriver"]

_DRIVER = r"""
/* ---- driver (elastodyn.formulations.nepvp_driver) ---- */
#include <string.h>
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

static int lu_solve(int n, double *A, double *b)
{{
    for (int k = 0; k < n; k++) {{
        int p = k;
        double m = fabs(A[k * n + k]);
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > m) {{ m = fabs(A[i * n + k]); p = i; }}
        if (m == 0.0) return 1;
        if (p != k) {{
            for (int j = 0; j < n; j++) {{
                double s = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = s;
            }}
            double s = b[k]; b[k] = b[p]; b[p] = s;
        }}
        for (int i = k + 1; i < n; i++) {{
            double f = A[i * n + k] / A[k * n + k];
            for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }}
    }}
    for (int k = n - 1; k >= 0; k--) {{
        double s = b[k];
        for (int j = k + 1; j < n; j++) s -= A[k * n + j] * b[j];
        b[k] = s / A[k * n + k];
    }}
    return 0;
}}

/* q (NJ): in, the guess of the passive joints; out, the closed joint vector. */
static int close_loop(const double *qa, const double *e, double *q)
{{
    for (int i = 0; i < NA; i++) q[ACT[i]] = qa[i];
#if NP == 0
    (void)e;
    return 0;                   /* one leg: no closure */
#else
    double h[NP], D[NP * NP];
    for (int it = 0; it < 50; it++) {{
        {closure}(q, e, h, D);
        double r = 0.0;
        for (int i = 0; i < NP; i++) r = fmax(r, fabs(h[i]));
        if (r < 1e-12) return 0;
        if (!(r < 1e3) || lu_solve(NP, D, h)) return 1;
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


class MotionDriver:
    """The compiled motion-driven simulation of ``model`` (module docstring).

    ``available`` is False when no C compiler is found; the caller then uses the Python
    path.
    """

    def __init__(self, model):
        self.model = model
        progs = {k: model.program(k) for k in ("closure", "inverse", "kinematics", "model")}
        kin = progs["kinematics"].outputs
        self.nt, self.nx = kin["tp"].rows, kin["xp"].rows
        na, ne, npas = model.na, model.ne, len(model.passive)
        if progs["closure"].outputs["h"].rows != npas:
            raise ModelError("the compiled driver needs as many closure equations as "
                             "passive joints (an isostatic robot)")
        self.name = progs["model"].name.rsplit("_model", 1)[0]
        driver = _DRIVER.format(
            na=na, ne=ne, nj=model.n_joints, np_=npas, nqdp=kin["qd_p"].rows, nt=self.nt,
            nx=self.nx, act=", ".join(map(str, model.actuated)),
            pas=", ".join(map(str, model.passive)), name=self.name,
            **{k: p.name for k, p in progs.items()})
        self.source = "\n".join(print_program(p, "c") for p in progs.values()) + driver
        self._lib = load_source(self.source)
        self.available = self._lib is not None
        if self.available:
            self._rk4 = getattr(self._lib, f"{self.name}_rk4")
            self._out = getattr(self._lib, f"{self.name}_outputs")
            self._rk4.restype = self._out.restype = ctypes.c_int

    @staticmethod
    def stage_samples(trajectory, t: np.ndarray) -> np.ndarray:
        """(nsteps, 3, 3 n_a): [q_a, q_a_d, q_a_dd] at the start, middle and end of every
        step of the grid t. The start is taken one float above (right limit) and the end
        one float below (left limit): a trajectory returns at a switch time the
        acceleration of one side only (e.g. ``BangBang`` gives -a at t_f where the rest
        after t_f has 0), and each step must see the side it lies on."""
        t = np.asarray(t, dtype=float)
        a, b = t[:-1], t[1:]
        ts = np.stack([np.nextafter(a, np.inf), 0.5 * (a + b), np.nextafter(b, -np.inf)],
                      axis=1).ravel()
        s = trajectory.evaluate(ts)
        return np.ascontiguousarray(np.hstack([s.position, s.velocity, s.acceleration])
                                    .reshape(len(a), 3, -1))

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
