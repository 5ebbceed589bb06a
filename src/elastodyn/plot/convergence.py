"""The convergence figure: relative error of each natural frequency against the number of
elements (or assumed modes) per beam, on log-log axes, with the fitted order.

For a discretization n = 1..N the error of f(n) is taken against a reference f_ref: the
Richardson extrapolation of the three finest meshes where they converge monotonically
(f(n) = f_ref + C n^-p solved for f_ref, C, p through n = N-2, N-1, N), else the finest
value f(N) (its own error is then unknown and the point is left out). The order of
convergence is the slope of the least-squares line through the asymptotic points, log
error against log n, over the finer half of the meshes (n >= N / 2), leaving out errors
at round-off (< 1e-11 relative). Cubic Hermite beam elements converge at order 4 in the
frequencies (eigenvalue error O(h^(2(k+1-m))) with k = 3, m = 2; Strang & Fix 1973,
section 6.3).
"""
from __future__ import annotations

import numpy as np

from .figure import finish, new_figure

__all__ = ["richardson_reference", "fitted_order", "convergence_errors",
           "convergence_figure", "ROUND_OFF"]

ROUND_OFF = 1e-11
"""Relative errors below this are eigen-solver round-off (~1e-13 .. 1e-12 for these
models' well-scaled matrices), not discretization error: they are left out of the fit."""

_P_RANGE = (0.25, 24.0)


def _ratio(p: float, n1: float, n2: float, n3: float) -> float:
    """(n3^-p - n2^-p) / (n2^-p - n1^-p): the ratio of successive differences of
    f = f_ref + C n^-p at n1 < n2 < n3 (decreasing in p)."""
    return (n3 ** -p - n2 ** -p) / (n2 ** -p - n1 ** -p)


def richardson_reference(n, f) -> tuple[float, float | None]:
    """(f_ref, p): the converged value of ``f`` (values at the meshes ``n``, increasing)
    extrapolated from the three finest meshes (module docstring), and the order p of that
    extrapolation; (f(N), None) when they do not converge monotonically at an order in
    [0.25, 24], or when the last difference is at round-off."""
    n = np.asarray(n, dtype=float)
    f = np.asarray(f, dtype=float)
    last = float(f[-1])
    if len(n) < 3 or not np.all(np.isfinite(f[-3:])):
        return last, None
    n1, n2, n3 = n[-3:]
    d1, d2 = f[-2] - f[-3], f[-1] - f[-2]
    scale = max(abs(last), 1e-300)
    if d1 == 0 or d2 == 0 or d1 * d2 < 0 or abs(d2) >= abs(d1) or \
            abs(d2) <= ROUND_OFF * scale:
        return last, None
    r = d2 / d1
    lo, hi = _P_RANGE
    if not _ratio(hi, n1, n2, n3) < r < _ratio(lo, n1, n2, n3):
        return last, None
    for _ in range(200):                   # bisection: the ratio decreases with p
        mid = 0.5 * (lo + hi)
        if _ratio(mid, n1, n2, n3) > r:
            lo = mid
        else:
            hi = mid
    p = 0.5 * (lo + hi)
    C = d2 / (n3 ** -p - n2 ** -p)
    return float(last - C * n3 ** -p), p


def convergence_errors(n, f) -> tuple[np.ndarray, float, bool]:
    """(relative errors (N,) [-], f_ref, extrapolated): |f(n) - f_ref| / |f_ref|, NaN
    where unknown (the finest point when f_ref is f(N))."""
    f = np.asarray(f, dtype=float)
    ref, p = richardson_reference(n, f)
    err = np.abs(f - ref) / max(abs(ref), 1e-300)
    if p is None:
        err[-1] = np.nan
    return err, ref, p is not None


def fitted_order(n, err) -> tuple[float | None, np.ndarray]:
    """(order, mask): minus the slope of the least-squares line through log err against
    log n over the asymptotic points (mask: n >= N / 2, finite error >= ROUND_OFF);
    None when fewer than two such points."""
    n = np.asarray(n, dtype=float)
    err = np.asarray(err, dtype=float)
    ok = np.isfinite(err) & (err >= ROUND_OFF) & (n >= 0.5 * n.max()) & (n > 0)
    if ok.sum() < 2:
        return None, ok
    slope = np.polyfit(np.log(n[ok]), np.log(err[ok]), 1)[0]
    return float(-slope), ok


def convergence_figure(n, f, *, option: str = "elements", title: str = ""):
    """The figure (module docstring): ``n`` (N,) meshes, ``f`` (N, modes) [Hz]."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter
    n = np.asarray(n, dtype=float)
    f = np.asarray(f, dtype=float).reshape(len(n), -1)
    fig, axes = new_figure(1, height=3.8)
    ax = axes[0]
    markers = "os^vD<>ph*"
    styles = ("-", "--", "-.", ":")
    refs = []
    for m in range(f.shape[1]):
        err, _, extrapolated = convergence_errors(n, f[:, m])
        refs.append(extrapolated)
        order, fit = fitted_order(n, err)
        shown = np.isfinite(err) & (err > 0)
        label = f"mode {m + 1}: order " + (f"{order:.1f}" if order is not None else "-")
        if not extrapolated:
            label += f" (vs f({int(n[-1])}))"
        if not shown.any():
            continue
        ax.loglog(n[shown], err[shown], marker=markers[m % len(markers)],
                          ls=styles[(m // 10) % len(styles)], ms=4, lw=1.0, label=label)
        if order is not None:
            c = np.polyfit(np.log(n[fit]), np.log(err[fit]), 1)
            x = n[fit]
            ax.loglog(x, np.exp(np.polyval(c, np.log(x))), color="k", lw=3.0,
                      alpha=0.2, zorder=0, solid_capstyle="round")
    if len(n) and n.max() <= 20:
        ax.xaxis.set_major_locator(FixedLocator(n))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("relative error of the frequency\n|f(n) - f_ref| / f_ref")
    how = ("f_ref: Richardson extrapolation of the three finest meshes" + (
        "" if all(refs) else f" (or f({int(n[-1])}) where not monotone)"))
    ax.set_title((title + "\n" if title else "") + how + "\norder: slope of the "
                 "least-squares line over n >= N/2 (grey)", fontsize=8)
    word = option.replace("_", " ")
    return finish(fig, axes, xlabel=f"{word} per beam, n")

