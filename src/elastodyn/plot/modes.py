"""Mode-shape plots of a link."""
from __future__ import annotations

import numpy as np

from ..io.atomic import atomic_path

_LABELS = {"u": "axial u", "v": "bending v", "w": "bending w", "phi": "torsion phi"}


def plot_link_modes(link, result, path) -> None:
    """Draw each mode's fields along the link into a PNG at ``path`` (atomic write).

    Each mode is scaled so that its largest field value is 1 (fields of different units
    are shown on one normalized axis; the legend names them).
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    count = result.mode_shapes.shape[1]
    ncol = 2 if count > 1 else 1
    nrow = int(np.ceil(count / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(6 * ncol, 2.4 * nrow), squeeze=False,
                             sharex=True)
    for k in range(count):
        ax = axes[k // ncol][k % ncol]
        fv = link.field_values(result.mode_shapes[:, k], points_per_element=21)
        peak = max(float(np.max(np.abs(fv[f]))) for f in link.element.fields) or 1.0
        for f in link.element.fields:
            if np.max(np.abs(fv[f])) > 1e-3 * peak:
                ax.plot(fv["x"], fv[f] / peak, label=_LABELS[f])
        kind = result.kinds[k] if result.kinds else ""
        ax.set_title(f"mode {k + 1}: {result.frequencies_hz[k]:.4g} Hz {kind}", fontsize=9)
        ax.axhline(0.0, color="0.7", lw=0.5)
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)
    for k in range(count, nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("x along the link [m]")
    fig.suptitle(f"{link.ends} link, L = {link.length:g} m, {link.n_elements} "
                 f"{'spatial' if link.element.spatial else 'planar'} "
                 f"{link.element.order} elements", fontsize=10)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
