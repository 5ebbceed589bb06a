"""Figures without pyplot: matplotlib ``Figure`` objects built directly, so that making a
figure never selects or switches the global backend (a user's interactive session keeps
its own) and needs no screen. ``Figure.savefig`` renders with the Agg canvas.

Rules every figure follows (README, "Results"): constrained layout (labels never run into
tick labels), legends outside the data (to the right of the axes, :func:`finish`),
coordinate names spelled out (:mod:`.labels`), the world frame stated where it matters
(a Delta's Z points down, Kuo 2016), and a result outside its model's validity says so on
each figure in one coloured line (:func:`validity_note`)."""
from __future__ import annotations

import textwrap

__all__ = ["new_figure", "finish", "wrap_title", "plain_log_ticks", "outside_legend",
           "validity_warnings", "validity_note", "z_down", "axis_name", "elastic_groups",
           "plot_elastic", "verdict_clause", "VALIDITY_MARKERS", "VALIDITY_COLOUR", "VALIDITY_GID",
           "FIGURE_FORMATS"]

FIGURE_FORMATS = ("png", "svg", "pdf")
"""Formats an output set writes figures in (``--format``)."""

VALIDITY_MARKERS = ("validity", "small-deformation", "own estimate", "cannot resolve",
                    "unresolved", "not describe the robot", "model is unstable")
"""A warning that contains one of these (case-insensitive) says the result may not
describe the robot: it is printed on the result's figures (:func:`validity_note`).
Analyses that add such a warning should say "validity" in it."""

VALIDITY_COLOUR = "#c0392b"
VALIDITY_GID = "elastodyn-validity"
"""gid of the text of the validity verdict on a figure (also in svg output)."""


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 7.0, height: float = 2.6,
               sharex: bool = True):
    """A Figure and its axes array (nrows, ncols) (squeezed to 1-D for one column)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width * max(1, ncols) / (1 if ncols == 1 else 1.4),
                          height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)
    return fig, (axes[:, 0] if ncols == 1 else axes)


def finish(fig, axes, *, xlabel: str | None = None, legend: bool = True, ncol: int = 1):
    """Grids, legends outside the data (to the right of each axes' area when they have
    labels) and the shared x label."""
    for ax in list(getattr(axes, "flat", axes)):
        ax.grid(alpha=0.3)
        if legend and ax.get_legend_handles_labels()[0]:
            outside_legend(ax, ncol=ncol)
        wrap_title(ax)
    if xlabel:
        last = list(getattr(axes, "flat", axes))[-1]
        last.set_xlabel(xlabel)
    return fig


def wrap_title(ax) -> None:
    """Break a title longer than the axes' width into lines (at spaces)."""
    text = ax.get_title()
    if not text:
        return
    fs = ax.title.get_fontsize()
    box = ax.get_position()
    chars = max(30, int(ax.figure.get_figwidth() * box.width * 72 / (0.52 * fs)))
    lines = [ln for part in text.split("\n")
             for ln in (textwrap.wrap(part, chars) or [""])]
    ax.set_title("\n".join(lines), fontsize=fs)


def plain_log_ticks(axis) -> None:
    """Ticks of a log ``axis`` (``ax.yaxis``) at 1, 2, 3, 5 x 10^k written as plain numbers
    (30, not 3 x 10^1)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def outside_legend(ax, *, ncol: int = 1, fontsize: float = 7, **kw):
    """The legend of ``ax`` to the right of its axes area (constrained layout makes room
    for it), never over the data."""
    return ax.legend(fontsize=fontsize, ncol=ncol, loc="upper left",
                     bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def validity_warnings(warnings) -> list[str]:
    """The warnings (sequence of str) that say the result may not describe the robot
    (:data:`VALIDITY_MARKERS`)."""
    return [w for w in warnings or ()
            if any(m in str(w).lower() for m in VALIDITY_MARKERS)]


def verdict_clause(warning: str) -> str:
    """The clause of ``warning`` that states the verdict, without the numbers: its head
    (up to the first " (" or "; ") when that holds a :data:`VALIDITY_MARKERS` word, else
    the clause holding the first such word, after the warning's label ("given: ",
    "ffrf-rr: ") if it has one; the whole warning when no word is found."""
    low = warning.lower()
    found = [low.find(m) for m in VALIDITY_MARKERS if m in low]
    head = warning.split(" (", 1)[0].split("; ", 1)[0]
    if not found:
        return warning
    pos = min(found)
    if pos < len(head):
        return head if len(head) >= 20 else warning
    starts = [warning.rfind(sep, 0, pos) + len(sep) for sep in ("; ", "(", ": ")
              if warning.rfind(sep, 0, pos) >= 0]
    start = max(starts) if starts else 0
    ends = [warning.find(sep, pos) for sep in (": ", "; ", " (", ")")
            if warning.find(sep, pos) >= 0]
    clause = warning[start:min(ends) if ends else len(warning)].strip()
    label = warning.split(": ", 1)[0] if ": " in warning else ""
    return f"{label}: {clause}" if label and " " not in label and start > 0 else clause


def validity_note(fig, notes, *, fontsize: float = 8.0) -> str | None:
    """Print the validity verdict on ``fig`` in red above everything: ``Outside the
    model's validity: <the first note's verdict>`` (its clause before the numbers, at
    most two lines at the figure's width; the full text is in the result's warnings and
    summary.md). Returns the text, or None when ``notes`` is empty. It is the figure's
    suptitle (constrained layout makes room), or, where the figure has one, a line above
    it."""
    notes = [str(n) for n in notes or () if str(n).strip()]
    if not notes:
        return None
    from matplotlib.text import Text
    done = [t for t in fig.findobj(Text) if t.get_gid() == VALIDITY_GID]
    if done:        # printed once (a subclass's figures calling its parent's)
        return done[0].get_text()
    first = verdict_clause(" ".join(notes[0].split()))
    more = f" (+{len(notes) - 1} more: summary.md)" if len(notes) > 1 else " (summary.md)"
    chars = max(40, int(fig.get_figwidth() * 72 / (0.6 * fontsize)))
    verdict = "Outside the model's validity: " + first
    lines = textwrap.wrap(verdict + more, chars)
    if len(lines) > 2:
        lines = textwrap.wrap(textwrap.shorten(verdict, 2 * chars - len(more) - 8,
                                               placeholder=" ...") + more, chars)
    line = "\n".join(lines[:2])
    if not fig.get_suptitle():
        artist = fig.suptitle(line, color=VALIDITY_COLOUR, fontsize=fontsize,
                              fontweight="bold")
    else:   # above the existing suptitle (savefig's tight bounding box keeps it)
        artist = fig.text(0.5, 1.0, line, color=VALIDITY_COLOUR, fontsize=fontsize,
                          fontweight="bold", ha="center", va="bottom",
                          transform=fig.transFigure)
    artist.set_gid(VALIDITY_GID)
    return line


def z_down(gravity) -> bool:
    """Whether a result's world Z axis points down: its robot's gravity (3,) [m/s^2] (the
    result's ``inputs["gravity_m_s2"]``, from the description) points along +Z more
    than along any other axis (a Delta in Kuo 2016's frame). None: not known, False."""
    if gravity is None:
        return False
    gx, gy, gz = (abs(float(v)) for v in gravity)
    return float(gravity[2]) > 0 and gz >= max(gx, gy)


def axis_name(axis: str, down: bool) -> str:
    """``Z (down)`` for the Z axis of a Z-down frame, else the axis name."""
    return f"{axis} (down)" if down and axis.upper() == "Z" else axis


def elastic_groups(e, names, *, top: int = 4) -> list:
    """The elastic coordinates to plot, by unit: [(unit, scale, scaled unit, indices)]
    with the ``top`` largest (peak magnitude) coordinates of each unit, displacements
    (m, shown in mm) first, then rotations (rad, shown in mrad), then any other unit.
    ``e`` (n_t, n_e), ``names`` (n_e,) (:func:`.labels.coordinate_unit`)."""
    import numpy as np

    from .labels import coordinate_unit
    e = np.asarray(e, dtype=float)
    peak = np.nan_to_num(np.abs(e)).max(axis=0) if e.size else np.zeros(0)
    units = [coordinate_unit(n) for n in names]
    shown = {"m": (1e3, "mm"), "rad": (1e3, "mrad")}
    order = ["m", "rad"] + sorted(set(units) - {"m", "rad"})
    out = []
    for u in order:
        idx = [k for k in np.argsort(-peak) if units[k] == u][:top]
        if idx:
            scale, su = shown.get(u, (1.0, u))
            out.append((u, scale, su, idx))
    return out


def plot_elastic(ax, t, e, names, group, *, lw: float = 0.9):
    """One panel of :func:`elastic_groups`: the coordinates of ``group`` against ``t``,
    labelled by :func:`.labels.readable_coordinate`, y label with the unit."""
    import numpy as np

    from .labels import readable_coordinate
    unit, scale, su, idx = group
    e = np.asarray(e, dtype=float)
    for k in idx:
        ax.plot(t, e[:, k] * scale, lw=lw, label=readable_coordinate(names[k]))
    what = {"m": "displacements", "rad": "rotations"}.get(unit, "coordinates")
    ax.set_ylabel(f"elastic {what}\n(largest {len(idx)}) [{su}]")
