"""Trajectories interpolated from a table of samples (arrays or a CSV file)."""
from __future__ import annotations

import csv
import os
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from ..exceptions import DimensionError, InputError
from ._base import Trajectory, TrajectorySample, as_times, check_space, readonly, sample

__all__ = ["TableTrajectory", "TABLE_BOUNDARIES", "TIME_COLUMN", "VELOCITY_SUFFIX", "ACCELERATION_SUFFIX"]

#: Name of the time column of a CSV table (time in s).
TIME_COLUMN = "time_s"
#: Suffix of the velocity column of position column ``name``: ``name + "_dot"``.
VELOCITY_SUFFIX = "_dot"
#: Suffix of the acceleration column of position column ``name``: ``name + "_ddot"``.
ACCELERATION_SUFFIX = "_ddot"
#: End conditions of the quintic spline (positions only): scipy's not-a-knot, or rest
#: (first and second derivatives zero at both ends).
TABLE_BOUNDARIES = ("not-a-knot", "rest")

_SPLINE_DEGREE = 5


def _min_rows(hermite: bool, boundary: str) -> int:
    """Fewest rows that define the interpolant."""
    if hermite or boundary == "rest":
        return 2  # one quintic between two rows (Hermite, or clamped with v = a = 0)
    return _SPLINE_DEGREE + 1  # not-a-knot quintic spline: k + 1 points


@dataclass(frozen=True, eq=False)
class TableTrajectory(Trajectory):
    r"""Trajectory interpolated through tabulated samples, C2 or better.

    Two interpolants, chosen by what the table gives:

    * **positions only** (``velocity`` and ``acceleration`` None): the quintic
      interpolating B-spline of ``scipy.interpolate.make_interp_spline`` (``k=5``,
      knots at the sample times), C4 in time, through every position. Velocity,
      acceleration and jerk are its first three derivatives (jerk continuous). End
      conditions (``boundary``): ``"not-a-knot"`` (scipy's default for odd degree;
      reproduces any polynomial of degree <= 5 exactly) or ``"rest"`` (velocity and
      acceleration zero at both ends: for a table that starts and ends at rest).
      Interpolation error for a smooth law :math:`f` sampled with spacing :math:`h`:
      :math:`O(h^{6-k})` in the k-th derivative.
    * **positions, velocities and accelerations**: the piecewise quintic Hermite
      interpolant (``scipy.interpolate.BPoly.from_derivatives``): on each interval
      the unique quintic matching position, velocity and acceleration at both rows.
      C2 in time; the jerk is that of each quintic and jumps at the rows (at a row
      the jerk of the interval starting there is returned; at the last row that of
      the last interval). For a law :math:`f` in :math:`C^6` the error on an
      interval of length :math:`h` is at most
      :math:`h^6 \max|f^{(6)}|/46080` in position (:math:`(t-a)^3(t-b)^3/6!`) and
      :math:`h^{6-k}\max|f^{(6)}|/(6-k)!` in the k-th derivative (k = 1, 2, 3).

    Parameters
    ----------
    time : array_like, shape (n,)
        Sample times in s, finite, strictly increasing. At least 6 rows for the
        not-a-knot spline, 2 otherwise.
    position : array_like, shape (n,) or (n, dim)
        Positions (m, or rad for revolute joints), finite; shape (n,) gives ``dim`` 1.
        Column order is the component order.
    velocity, acceleration : array_like, shape of ``position``, optional
        Velocities (m/s) and accelerations (m/s^2) at the sample times, finite; give
        both (quintic Hermite) or neither (quintic spline).
    space : {"task", "joint"}, keyword-only, required
        ``"task"``: end-effector / platform positions; ``"joint"``: actuated
        coordinates in the order of the robot's actuators. A table does not know
        which, so there is no default.
    names : sequence of str, length dim, optional, keyword-only
        Names of the components (the CSV position column names); informative only.
    boundary : {"not-a-knot", "rest"}, keyword-only
        End conditions of the spline (positions-only tables). Default "not-a-knot".
        The Hermite interpolant takes its end derivatives from the table, so only
        the default is allowed with ``velocity``/``acceleration``.

    Attributes
    ----------
    time, position, velocity, acceleration : numpy.ndarray or None
        The table, read-only; ``position`` (and the others) of shape (n, dim).
    method : str
        ``"spline"`` or ``"hermite"``.

    Notes
    -----
    Inside the closed interval ``[time[0], time[-1]]`` the interpolant is evaluated
    (one-sided derivatives at the ends). Outside, the trajectory holds the first or
    last tabulated position with zero velocity, acceleration and jerk. It is therefore
    continuous in velocity at the ends only if the interpolant is at rest there: a
    Hermite table whose first/last rows have zero velocity and acceleration, or a
    spline with ``boundary="rest"`` (the not-a-knot spline has the end derivatives its
    fit gives, near zero only if the data approach rest). Even then the jerk jumps to
    zero outside.

    Raises
    ------
    InputError
        Non-numeric or non-finite values (naming ``name[i]`` or ``name[i, j]``),
        times not strictly increasing, too few rows, only one of ``velocity`` and
        ``acceleration``, bad ``space``, ``boundary`` or ``names``.
    DimensionError
        ``time`` not 1-D, ``position`` not 1-D or 2-D with one row per time,
        ``velocity``/``acceleration`` not of the shape of ``position``.
    """

    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray | None = None
    acceleration: np.ndarray | None = None
    _: KW_ONLY
    space: str = field()  # required: field() so that Trajectory.space is not taken as default
    names: tuple[str, ...] | None = None
    boundary: str = "not-a-knot"
    _derivatives: tuple[Callable, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        space = check_space(self.space)
        if not isinstance(self.boundary, str) or self.boundary not in TABLE_BOUNDARIES:
            raise InputError("boundary", self.boundary, "one of " + ", ".join(TABLE_BOUNDARIES))
        time = _numeric_array("time", self.time)
        if time.ndim != 1:
            raise DimensionError(f"invalid time: expected shape (n,), got {time.shape}")
        position = _numeric_array("position", self.position)
        if position.ndim == 1:
            position = position[:, None]
        if position.ndim != 2 or position.shape[0] != time.size or position.shape[1] == 0:
            raise DimensionError(
                f"invalid position: expected shape ({time.size},) or ({time.size}, dim), "
                f"got {np.shape(self.position)}"
            )
        if (self.velocity is None) != (self.acceleration is None):
            missing = "acceleration" if self.acceleration is None else "velocity"
            other = "velocity" if missing == "acceleration" else "acceleration"
            raise InputError(
                missing,
                None,
                f"given together with {other} (the quintic Hermite interpolant needs position, "
                "velocity and acceleration at every row); or neither (quintic spline)",
            )
        hermite = self.velocity is not None
        derivs = []
        if hermite:
            for name in ("velocity", "acceleration"):
                arr = _numeric_array(name, getattr(self, name))
                if arr.ndim == 1 and position.shape[1] == 1:
                    arr = arr[:, None]
                if arr.shape != position.shape:
                    raise DimensionError(
                        f"invalid {name}: expected shape {position.shape} (that of position), "
                        f"got {np.shape(getattr(self, name))}"
                    )
                derivs.append(arr)
            if self.boundary != "not-a-knot":
                raise InputError(
                    "boundary",
                    self.boundary,
                    "not-a-knot (the default) with velocity/acceleration: the Hermite "
                    "interpolant takes its end derivatives from the table",
                )
        for name, arr in (("time", time), ("position", position), *zip(("velocity", "acceleration"), derivs)):
            _check_finite(arr, lambda i, j, name=name, arr=arr: _array_cell(name, arr, i, j))
        _check_increasing(time, lambda i: f"time[{i}]", lambda i: f"time[{i}]")
        minimum = _min_rows(hermite, self.boundary)
        if time.size < minimum:
            raise InputError("time", self.time, f"at least {minimum} rows ({_rows_reason(hermite, self.boundary)})")
        names = self.names
        if names is not None:
            if isinstance(names, str) or not isinstance(names, Sequence):
                raise InputError("names", names, f"a sequence of {position.shape[1]} non-empty strings")
            names = tuple(names)
            if len(names) != position.shape[1] or not all(isinstance(n, str) and n for n in names):
                raise InputError("names", self.names, f"a sequence of {position.shape[1]} non-empty strings")

        if hermite:
            nodes = np.stack([position, derivs[0], derivs[1]], axis=1)  # (n, 3, dim)
            from scipy.interpolate import BPoly
            interp = BPoly.from_derivatives(time, nodes, orders=_SPLINE_DEGREE)
        else:
            bc = None
            if self.boundary == "rest":
                zero = np.zeros(position.shape[1])
                bc = ([(1, zero), (2, zero)], [(1, zero), (2, zero)])
            from scipy.interpolate import make_interp_spline
            interp = make_interp_spline(time, position, k=_SPLINE_DEGREE, bc_type=bc, axis=0)
        chain = (interp, *(interp.derivative(m) for m in (1, 2, 3)))

        set_ = object.__setattr__
        set_(self, "space", space)
        set_(self, "time", readonly(time))
        set_(self, "position", readonly(position))
        set_(self, "velocity", readonly(derivs[0]) if hermite else None)
        set_(self, "acceleration", readonly(derivs[1]) if hermite else None)
        set_(self, "names", names)
        set_(self, "_derivatives", chain)

    # ------------------------------------------------------------------ interface

    @property
    def dim(self) -> int:
        """Number of position columns."""
        return int(self.position.shape[1])

    @property
    def t_start(self) -> float:
        """First sample time in s."""
        return float(self.time[0])

    @property
    def t_end(self) -> float:
        """Last sample time in s."""
        return float(self.time[-1])

    @property
    def method(self) -> str:
        """``"hermite"`` (velocities and accelerations given) or ``"spline"``."""
        return "hermite" if self.velocity is not None else "spline"

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate the interpolant at times ``t`` (float or array_like (n,), s).

        Returns
        -------
        TrajectorySample
            ``time`` (n,); ``position``, ``velocity``, ``acceleration``, ``jerk``
            (n, dim) in SI units; end values held outside the table (see Notes of
            the class).
        """
        t = as_times(t)
        t0, t1 = self.time[0], self.time[-1]
        inside = ((t >= t0) & (t <= t1))[:, None]
        tc = np.clip(t, t0, t1)
        vals = [np.asarray(f(tc), dtype=float).reshape(t.size, self.dim) for f in self._derivatives]
        held = np.where((t < t0)[:, None], self.position[0], self.position[-1])
        out = [np.where(inside, vals[0], held)] + [np.where(inside, v, 0.0) for v in vals[1:]]
        return sample(t, *out)

    # ------------------------------------------------------------------ CSV

    @classmethod
    def from_csv(cls, path, space: str, *, boundary: str = "not-a-knot") -> "TableTrajectory":
        """Read a table from a CSV file.

        Format (comma-separated, UTF-8, an optional byte-order mark):

        * lines that are empty or whose first cell starts with ``#`` are comments,
          anywhere in the file;
        * the first other line is the **header**: one non-empty, unique name per
          column (spaces around names are ignored);
        * a column named ``time_s`` (:data:`TIME_COLUMN`): times in s, finite,
          strictly increasing;
        * **position** columns: every column whose name neither is ``time_s`` nor
          ends in ``_dot`` or ``_ddot``; any names, and their order in the header is
          the component order (SI units: m, or rad);
        * optional **velocity** and **acceleration** columns: ``<name>_dot`` (m/s) and
          ``<name>_ddot`` (m/s^2) for position column ``<name>`` (suffixes
          :data:`VELOCITY_SUFFIX`, :data:`ACCELERATION_SUFFIX`), in any place; either
          none, or one of each for every position column (quintic Hermite);
        * every other line is a data row with one decimal number per column
          (``float`` syntax, e.g. ``0.25``, ``-1.5e-3``); nothing is evaluated.

        Example::

            # pick and place, m
            time_s,x,y,x_dot,y_dot,x_ddot,y_ddot
            0.0,0.0,0.0,0,0,0,0
            0.5,0.1,0.05,0.3,0.1,0,0
            1.0,0.2,0.1,0,0,0,0

        Parameters
        ----------
        path : str or os.PathLike
            The CSV file.
        space : {"task", "joint"}
            What the position columns are (see :class:`TableTrajectory`).
        boundary : {"not-a-knot", "rest"}, keyword-only
            End conditions of the spline for a positions-only table.

        Returns
        -------
        TableTrajectory
            With ``names`` the position column names.

        Raises
        ------
        InputError
            Bad ``space`` or ``boundary``; in the file (the message names the file,
            the line and the column): no header, no or several ``time_s`` columns,
            empty or repeated column names, no position column, velocity or
            acceleration columns without their position column or missing for some
            position column, velocity columns without acceleration columns (or the
            reverse), a row with the wrong number of cells, a non-numeric cell, NaN
            or infinite values, times not strictly increasing, too few data rows.
        OSError
            The file cannot be read (e.g. FileNotFoundError).
        """
        space = check_space(space)
        if not isinstance(boundary, str) or boundary not in TABLE_BOUNDARIES:
            raise InputError("boundary", boundary, "one of " + ", ".join(TABLE_BOUNDARIES))
        fname = os.fspath(path)
        header, header_line, rows, lines = _read_csv(fname)
        layout = _columns(fname, header, header_line)
        where = lambda i, j: f"{fname}: line {lines[i]}, column {j + 1} ({header[j]!r})"  # noqa: E731
        data = np.empty((len(rows), len(header)))
        for i, row in enumerate(rows):
            if len(row) != len(header):
                raise InputError(
                    f"{fname}: line {lines[i]}",
                    ",".join(row),
                    f"{len(header)} cells, one per header column (got {len(row)})",
                )
            for j, cell in enumerate(row):
                try:
                    data[i, j] = float(cell.strip())
                except ValueError:
                    raise InputError(where(i, j), cell, "a decimal number (e.g. 0.25, -1.5e-3)") from None
        _check_finite(data, where)
        it = layout["time"]
        _check_increasing(
            data[:, it],
            lambda i: where(i, it),
            lambda i: f"line {lines[i]}",
        )
        hermite = layout["velocity"] is not None
        minimum = _min_rows(hermite, boundary)
        if len(rows) < minimum:
            raise InputError(
                fname,
                f"{len(rows)} data rows",
                f"at least {minimum} data rows ({_rows_reason(hermite, boundary)})",
            )
        pos = data[:, layout["position"]]
        vel = data[:, layout["velocity"]] if hermite else None
        acc = data[:, layout["acceleration"]] if hermite else None
        names = tuple(header[j] for j in layout["position"])
        return cls(data[:, it], pos, vel, acc, space=space, names=names, boundary=boundary)


# ----------------------------------------------------------------------------- helpers


def _rows_reason(hermite: bool, boundary: str) -> str:
    if hermite:
        return "quintic Hermite: two rows per interval"
    if boundary == "rest":
        return "quintic spline at rest at both ends"
    return "not-a-knot quintic spline: degree + 1 rows"


def _numeric_array(name: str, value) -> np.ndarray:
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, value, "an array of finite numbers") from None


def _array_cell(name: str, arr: np.ndarray, i: int, j: int) -> str:
    return f"{name}[{i}]" if arr.ndim == 1 else f"{name}[{i}, {j}]"


def _check_finite(arr: np.ndarray, where: Callable[[int, int], str]) -> None:
    """Raise InputError naming the first non-finite cell (row i, column j)."""
    bad = ~np.isfinite(arr)
    if np.any(bad):
        i, *rest = np.argwhere(bad)[0]
        j = int(rest[0]) if rest else 0
        value = arr[i, j] if arr.ndim == 2 else arr[i]
        raise InputError(where(int(i), j), float(value), "a finite number")


def _check_increasing(time: np.ndarray, where: Callable[[int], str], label: Callable[[int], str]) -> None:
    """Raise InputError at the first time not above its predecessor."""
    bad = np.flatnonzero(~(np.diff(time) > 0.0))
    if bad.size:
        i = int(bad[0]) + 1
        raise InputError(
            where(i),
            float(time[i]),
            f"a time > {float(time[i - 1])} s of {label(i - 1)} (strictly increasing times)",
        )


def _read_csv(fname: str) -> tuple[list[str], int, list[list[str]], list[int]]:
    """Header cells, header line number, data rows and their line numbers."""
    header, header_line, rows, lines = None, 0, [], []
    with open(fname, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        first = 0
        for row in reader:
            line = first + 1
            first = reader.line_num
            if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header, header_line = [c.strip() for c in row], line
            else:
                rows.append(row)
                lines.append(line)
    if header is None:
        raise InputError(fname, "no header", f"a header row naming the columns, with {TIME_COLUMN!r}")
    return header, header_line, rows, lines


def _columns(fname: str, header: list[str], line: int) -> dict:
    """Indices of the time, position, velocity and acceleration columns."""
    where = lambda j: f"{fname}: line {line} (header), column {j + 1}"  # noqa: E731
    seen: dict[str, int] = {}
    for j, name in enumerate(header):
        if not name:
            raise InputError(where(j), name, "a non-empty column name")
        if name in seen:
            raise InputError(where(j), name, f"a name not used before (column {seen[name] + 1} has it)")
        seen[name] = j
    if TIME_COLUMN not in seen:
        raise InputError(
            f"{fname}: line {line} (header)", ",".join(header), f"a header with a {TIME_COLUMN!r} column (time in s)"
        )
    vel, acc, pos = {}, {}, []
    for j, name in enumerate(header):
        if name == TIME_COLUMN:
            continue
        if name.endswith(ACCELERATION_SUFFIX):
            acc[name[: -len(ACCELERATION_SUFFIX)]] = j
        elif name.endswith(VELOCITY_SUFFIX):
            vel[name[: -len(VELOCITY_SUFFIX)]] = j
        else:
            pos.append(j)
    if not pos:
        raise InputError(
            f"{fname}: line {line} (header)",
            ",".join(header),
            f"at least one position column (a name other than {TIME_COLUMN!r} not ending in "
            f"{VELOCITY_SUFFIX!r} or {ACCELERATION_SUFFIX!r})",
        )
    pos_names = [header[j] for j in pos]
    out = {"time": seen[TIME_COLUMN], "position": pos, "velocity": None, "acceleration": None}
    for kind, cols, suffix in (("velocity", vel, VELOCITY_SUFFIX), ("acceleration", acc, ACCELERATION_SUFFIX)):
        for base, j in cols.items():
            if base not in pos_names:
                raise InputError(
                    where(j), header[j], f"the {kind} of a position column {base!r}, which the header lacks"
                )
        if cols:
            missing = [n + suffix for n in pos_names if n not in cols]
            if missing:
                raise InputError(
                    f"{fname}: line {line} (header)",
                    ",".join(header),
                    f"{kind} columns for every position column or for none (missing {', '.join(missing)})",
                )
            out[kind] = [cols[n] for n in pos_names]
    if (out["velocity"] is None) != (out["acceleration"] is None):
        has, lacks = ("velocity", "acceleration") if out["velocity"] is not None else ("acceleration", "velocity")
        suffix = ACCELERATION_SUFFIX if lacks == "acceleration" else VELOCITY_SUFFIX
        raise InputError(
            f"{fname}: line {line} (header)",
            ",".join(header),
            f"{lacks} columns (<name>{suffix}) with the {has} columns: the quintic Hermite "
            "interpolant needs both; or neither (quintic spline through the positions)",
        )
    return out
