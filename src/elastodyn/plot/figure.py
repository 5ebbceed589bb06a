"""Figures without pyplot: matplotlib ``Figure`` objects built directly, so that making a
figure never selects or switches the global backend (a user's interactive session keeps
its own) and needs no screen. ``Figure.savefig`` renders with the Agg canvas."""
from __future__ import annotations

__all__ = ["new_figure", "finish"]


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 7.0, height: float = 2.6,
               sharex: bool = True):
    """A Figure and its axes array (nrows, ncols) (squeezed to 1-D for one column)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width * max(1, ncols) / (1 if ncols == 1 else 1.4),
                          height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)
    return fig, (axes[:, 0] if ncols == 1 else axes)


def finish(fig, axes, *, xlabel: str | None = None, legend: bool = True, ncol: int = 1):
    """Grids, legends outside the data (below each axes' area when they have labels) and
    the shared x label."""
    for ax in list(getattr(axes, "flat", axes)):
        ax.grid(alpha=0.3)
        if legend and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, ncol=ncol, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                      borderaxespad=0.0)
    if xlabel:
        last = list(getattr(axes, "flat", axes))[-1]
        last.set_xlabel(xlabel)
    return fig
