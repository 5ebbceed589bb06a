"""Result objects: one layout for every analysis.

Every analysis returns a :class:`Result` (immutable). Its :meth:`Result.to_dict` is the
documented JSON layout of every verb (README, "Results"):

``schema_version``
    integer, 2 (1 before the one layout per verb of issue 30; CHANGELOG lists the renamed keys).
``command``, ``robot``, ``formulation``
    the analysis, the robot's name (a preset name or the file's ``name``), the
    formulation that built the model.
``model``
    the model options (discretization and switches), echoed.
``inputs``
    the analysis inputs (pose, count, trajectory, step, ...), echoed.
quantities
    one key per quantity, its unit as a suffix (``omega_rad_s``, ``torque_nm``,
    ``position_m``); time series and tables as (n_samples, n_components) nested lists;
    ``*_names`` keys give the component names of a series where they are not obvious.
``summary``
    headline values (unit-suffixed keys), e.g. peak torques.
``warnings``
    list of one-line warnings (validity of the linear model, resolved frequencies).
``run``
    what changes from run to run (wall time, version); everything else is reproducible.

:meth:`Result.save` writes the whole output set of the run (JSON, CSV, figures and
``summary.md``) or nothing (:mod:`elastodyn.io.output_set`); :meth:`Result.plot` returns
a matplotlib Figure, built without pyplot, so the global backend is never touched.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from .._version import __version__

__all__ = ["Result", "DatasetResult", "SCHEMA_VERSION", "jsonable", "status_csv"]

SCHEMA_VERSION = 2


def jsonable(value):
    """``value`` as JSON data: arrays to nested lists, non-finite floats to None, tuples
    to lists, numpy scalars to Python numbers."""
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


@dataclass(frozen=True, eq=False, kw_only=True)
class Result:
    """A result of an analysis (module docstring for the layout).

    Attributes
    ----------
    command, robot, formulation : str
    model, inputs : dict
        Echoed model options and analysis inputs.
    quantities : dict
        Unit-suffixed key -> number, array (n_samples,) or (n_samples, n_components),
        or list of names.
    summary : dict
        Headline values.
    warnings : tuple of str
    run : dict
        Wall time and version (not reproducible).
    columns : dict
        Key -> component names of a 2-D series, for the CSV header.
    index : str or None
        The key whose length is the number of rows of the CSV table (``time_s``,
        ``mode``, ``elements`` ...).
    stem : str
        File name stem of the JSON and CSV files (``modes``, ``simulation``).
    title : str
        One line saying what was computed.
    """

    command: str
    robot: str
    formulation: str
    model: dict
    inputs: dict
    quantities: dict
    summary: dict = field(default_factory=dict)
    warnings: tuple = ()
    run: dict = field(default_factory=dict)
    columns: dict = field(default_factory=dict)
    index: str | None = None
    stem: str = "result"
    title: str = ""

    def __getitem__(self, key):
        return self.quantities[key]

    # ------------------------------------------------------------------ layout
    def to_dict(self) -> dict:
        """The JSON layout (module docstring)."""
        out = {"schema_version": SCHEMA_VERSION, "command": self.command,
               "robot": self.robot, "formulation": self.formulation,
               "model": jsonable(self.model), "inputs": jsonable(self.inputs)}
        for k, v in self.quantities.items():
            out[k] = jsonable(v)
        out["summary"] = jsonable(self.summary)
        out["warnings"] = list(self.warnings)
        out["run"] = jsonable({"elastodyn_version": __version__, **self.run})
        return out

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    # ------------------------------------------------------------------ tables
    def table(self) -> tuple[list[str], np.ndarray] | None:
        """(header, rows) of the CSV table: the quantities with one row per entry of
        ``index`` (None when the result has no table)."""
        if self.index is None or self.index not in self.quantities:
            return None
        n = len(np.atleast_1d(self.quantities[self.index]))
        header, cols = [], []
        for key, value in self.quantities.items():
            arr = np.asarray(value)
            if arr.dtype.kind not in "fiub" or arr.ndim == 0 or arr.shape[0] != n:
                continue
            if arr.ndim == 1:
                header.append(key)
                cols.append(arr.astype(float)[:, None])
            elif arr.ndim == 2:
                names = self.columns.get(key) or [f"{key}[{k}]" for k in range(arr.shape[1])]
                header += list(names)
                cols.append(arr.astype(float))
        if not cols:
            return None
        return header, np.hstack(cols)

    def csv(self) -> str | None:
        """The CSV table as text (10 significant digits), or None."""
        tab = self.table()
        if tab is None:
            return None
        header, rows = tab
        lines = [",".join(header)]
        lines += [",".join(f"{v:.10g}" for v in row) for row in rows]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ text
    def summary_lines(self) -> list[str]:
        """Lines for people (standard error, summary.md)."""
        lines = [self.title or f"{self.robot}: {self.command} ({self.formulation})"]
        for k, v in self.summary.items():
            if k == "validity_warning":       # printed below, with the other warnings
                continue
            lines.append(f"  {k}: {_fmt(v)}")
        for w in self.warnings:
            lines.append(f"  WARNING: {w}")
        return lines

    def summary_md(self, files=()) -> str:
        lines = self.summary_lines()
        body = [f"# {lines[0]}", ""]
        body += [f"- formulation: {self.formulation}; model options: "
                 + (", ".join(f"{k} = {_fmt(v)}" for k, v in self.model.items()) or "none")]
        if self.inputs:
            body.append("- inputs: " + ", ".join(f"{k} = {_fmt(v)}"
                                                  for k, v in self.inputs.items()))
        body += ["- " + ln.strip() for ln in lines[1:]]
        if files:
            body += ["", "Files: " + ", ".join(files)]
        return "\n".join(body) + "\n"

    # ------------------------------------------------------------------ figures
    def __init_subclass__(cls, **kwargs):
        """The ``figures`` a subclass defines print the validity verdict on each figure
        when a warning says the result is outside the model's validity (one red line,
        :func:`elastodyn.plot.figure.validity_note`): whoever asks for the figures
        (``figures()``, ``plot()``, the output set) sees it."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("figures")
        if own is not None and not getattr(own, "prints_validity", False):
            cls.figures = _with_validity(own)

    def figures(self) -> dict:
        """Figure name (file stem) -> matplotlib Figure (none by default)."""
        return {}

    def plot(self):
        """The main figure of the result (a matplotlib Figure; the global backend is
        not touched), or None when the result has no figure."""
        figs = self.figures()
        return next(iter(figs.values())) if figs else None

    # ------------------------------------------------------------------ files
    def files(self, formats=("png",)) -> dict:
        """File name -> content (bytes, str or a writer taking the path) of the whole
        output set: ``{stem}.json``, ``{stem}.csv`` (if a table), ``summary.md``, and
        each figure in each of ``formats`` (png, svg, pdf)."""
        formats = _check_formats(formats)
        out = {f"{self.stem}.json": self.to_json() + "\n"}
        text = self.csv()
        if text is not None:
            out[f"{self.stem}.csv"] = text
        for name, fig in (self.figures() if formats else {}).items():
            for fmt in formats:
                out[f"{name}.{fmt}"] = _fig_writer(fig, fmt)
        names = sorted(list(out) + ["summary.md"])
        out["summary.md"] = self.summary_md(names)
        return out

    def save(self, folder, formats=("png",)) -> list[str]:
        """Write the whole output set into ``folder`` (all files or none; an existing
        folder must be empty or an earlier output set, which is replaced whole).
        Returns the file names."""
        from ..io.output_set import write_output_set
        return write_output_set(folder, self.files(formats), marker=self.command)


class DatasetResult(Result):
    """A result over many points with an xarray Dataset (workspace maps, sweeps): its
    output set adds ``{stem}.nc`` (NetCDF through scipy), and its CSV table ends with
    each point's ``status`` and ``reason`` (:func:`status_csv`)."""

    def dataset(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def files(self, formats=("png",)) -> dict:
        out = super().files(formats)
        ds = self.dataset()

        def write(path):
            ds.to_netcdf(path, engine="scipy")
        out[f"{self.stem}.nc"] = write
        out["summary.md"] = self.summary_md(sorted(k for k in out if k != "summary.md"))
        return out


def status_csv(head, num, status, reason) -> str:
    """CSV text of numeric rows ``num`` (P, len(head)) (non-finite values empty, 10
    significant digits) followed by the columns ``status`` and ``reason`` (quoted)."""
    lines = [",".join(list(head) + ["status", "reason"])]
    for row, st, why in zip(np.asarray(num, dtype=float), status, reason):
        cells = ["" if not np.isfinite(v) else f"{v:.10g}" for v in row]
        lines.append(",".join(cells + [st, '"' + why.replace('"', "'") + '"']))
    return "\n".join(lines) + "\n"


def _with_validity(make):
    """``make`` (a ``figures`` method) followed by the validity verdict on each figure
    (:meth:`Result.__init_subclass__`)."""
    import functools

    @functools.wraps(make)
    def figures(self) -> dict:
        figs = make(self)
        if figs:
            from ..plot.figure import validity_note, validity_warnings
            notes = validity_warnings(self.warnings)
            for fig in figs.values():
                validity_note(fig, notes)
        return figs
    figures.prints_validity = True
    return figures


def _check_formats(formats) -> tuple:
    """``formats`` (a name or a sequence of names among png, svg, pdf; empty: no
    figures) as a tuple; anything else is bad input naming ``formats``."""
    from ..exceptions import InputError
    from ..plot.figure import FIGURE_FORMATS
    items = (formats,) if isinstance(formats, str) else tuple(formats or ())
    bad = [f for f in items if f not in FIGURE_FORMATS]
    if bad:
        raise InputError("formats", list(items), "figure formats among "
                         + ", ".join(FIGURE_FORMATS))
    return tuple(dict.fromkeys(items))


def _fig_writer(fig, fmt):
    # no creation date and fixed ids in vector files: the same run writes the same bytes
    meta = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt)

    def write(path):
        from matplotlib import rc_context
        with rc_context({"svg.hashsalt": "elastodyn"}):
            fig.savefig(path, format=fmt, dpi=110, bbox_inches="tight", metadata=meta)
    return write


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(v)
        except ValueError:  # ragged (e.g. a sweep's grid values): item by item
            return "[" + ", ".join(_fmt(x) for x in list(v)[:12]) + (
                ", ..." if len(v) > 12 else "") + "]"
        if arr.dtype.kind == "f":
            return "[" + ", ".join(f"{x:.6g}" for x in arr.ravel()[:12]) + (
                ", ..." if arr.size > 12 else "") + "]"
        return "[" + ", ".join(str(x) for x in arr.ravel()[:12]) + (
            ", ..." if arr.size > 12 else "") + "]"
    if isinstance(v, dict):  # e.g. a simulation's model_error
        return "{" + ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) + "}"
    return str(v)
