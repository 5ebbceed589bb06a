"""Mode-shape plots of a link."""
from __future__ import annotations

import numpy as np

from .figure import new_figure

_LABELS = {"u": "axial u", "v": "bending v", "w": "bending w", "phi": "torsion phi"}
_COLOURS = {"u": "C0", "v": "C1", "w": "C2", "phi": "C3"}


def link_modes_figure(link, result):
    """A Figure of each mode's fields along the link (no pyplot).

    Each mode is scaled so that its largest field value is 1 (fields of different units
    are shown on one normalized axis; the legend names them).
    """
    count = result.mode_shapes.shape[1]
    ncol = 2 if count > 1 else 1
    nrow = int(np.ceil(count / ncol))
    fig, axes = new_figure(nrow, ncol, width=6.0 * 1.4 if ncol > 1 else 6.0, height=2.4)
    if ncol == 1:
        axes = axes[:, None]
    for k in range(count):
        ax = axes[k // ncol][k % ncol]
        fv = link.field_values(result.mode_shapes[:, k], points_per_element=21)
        peak = max(float(np.max(np.abs(fv[f]))) for f in link.element.fields) or 1.0
        for f in link.element.fields:
            if np.max(np.abs(fv[f])) > 1e-3 * peak:
                ax.plot(fv["x"], fv[f] / peak, label=_LABELS[f], color=_COLOURS[f])
        kind = result.kinds[k] if result.kinds else ""
        ax.set_title(f"mode {k + 1}: {result.frequencies_hz[k]:.4g} Hz {kind}", fontsize=9)
        ax.axhline(0.0, color="0.7", lw=0.5)
        ax.grid(alpha=0.3)
    # one legend for all panels (each field has one colour), outside the data
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    order = [lab for lab in _LABELS.values() if lab in handles]
    if order:
        fig.legend([handles[lab] for lab in order], order, loc="outside right upper",
                   fontsize=7, title="field (scaled)", title_fontsize=7)
    for k in range(count, nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("x along the link [m]")
    fig.supylabel("mode shape, largest field value 1 [-]", fontsize=9)
    fig.suptitle(f"{link.ends} link, L = {link.length:g} m, {link.n_elements} "
                 f"{'spatial' if link.element.spatial else 'planar'} "
                 f"{link.element.order} elements", fontsize=10)
    return fig
